import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseJsonBody, readBoundedBody } from '@gw/core';

/** `application/json`, optionally with a UTF-8 charset: the only shape the fast reader takes. */
const PLAIN_JSON = /^application\/json\s*(;\s*charset\s*=\s*"?utf-?8"?\s*)?$/i;

/** A connect-style body parser (body-parser's json): sets `req.body` or calls back with an error. */
export type BodyParser = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * The relay's JSON body. UTF-8 JSON (what every client sends), plain or gzip/deflate/br, is read here
 * with readBoundedBody (413 over the limit or past the inflation ratio, without holding the inflated
 * whole first) and parsed with the nesting-depth check (400), which costs a fraction of body-parser's
 * generic pipeline. Anything else (other charsets, other content types) goes to `fallback`, the regular
 * express.json parser. Rejects with body-parser's `type`/`status` errors; undefined when no parser took the body.
 */
export async function readJsonBody(req: IncomingMessage, res: ServerResponse, limit: number, fallback: BodyParser): Promise<unknown> {
  const type = req.headers['content-type'];
  if (typeof type !== 'string' || !PLAIN_JSON.test(type)) {
    return new Promise((resolve, reject) =>
      fallback(req, res, (error) => (error ? reject(error) : resolve((req as { body?: unknown }).body))),
    );
  }
  return parseJsonBody(await readBoundedBody(req, limit));
}
