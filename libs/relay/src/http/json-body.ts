import type { IncomingMessage, ServerResponse } from 'node:http';

/** `application/json`, optionally with a UTF-8 charset: the only shape the fast reader takes. */
const PLAIN_JSON = /^application\/json\s*(;\s*charset\s*=\s*"?utf-?8"?\s*)?$/i;

/** A connect-style body parser (body-parser's json): sets `req.body` or calls back with an error. */
export type BodyParser = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** An error shaped like body-parser's, so bodyErrorAnswer (@gw/core) answers it like any other body error. */
function bodyError(message: string, type: string, status: number): Error {
  return Object.assign(new Error(message), { type, status, statusCode: status, expose: true });
}

/** body-parser's strict mode: only an object or an array is a JSON body. */
function parseStrict(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const first = /\S/.exec(body)?.[0];
  if (first === undefined) return {};
  if (first !== '{' && first !== '[') throw new SyntaxError('not an object or array');
  return JSON.parse(body);
}

/**
 * The relay's JSON body. Plain uncompressed UTF-8 JSON (what every client sends) is read and parsed
 * here directly, which costs a fraction of body-parser's generic pipeline; anything else (gzip/deflate
 * bodies, other charsets, other content types) goes to `fallback`, the regular express.json parser, so
 * every body body-parser accepts is still accepted. Rejects with body-parser's `type`/`status` errors
 * (413 over the limit, 400 for broken JSON or an aborted upload); undefined when no parser took the body.
 */
export function readJsonBody(req: IncomingMessage, res: ServerResponse, limit: number, fallback: BodyParser): Promise<unknown> {
  const type = req.headers['content-type'];
  const encoding = req.headers['content-encoding'];
  if (typeof type !== 'string' || !PLAIN_JSON.test(type) || (encoding !== undefined && encoding.toLowerCase() !== 'identity')) {
    return new Promise((resolve, reject) =>
      fallback(req, res, (error) => (error ? reject(error) : resolve((req as { body?: unknown }).body))),
    );
  }
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    req.resume();
    return Promise.reject(bodyError('request entity too large', 'entity.too.large', 413));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error: Error | undefined, body?: unknown) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onError);
      if (error) reject(error);
      else resolve(body);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.resume();
        finish(bodyError('request entity too large', 'entity.too.large', 413));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      let body: unknown;
      try {
        body = parseStrict(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
      } catch {
        finish(bodyError('request body is not valid JSON', 'entity.parse.failed', 400));
        return;
      }
      finish(undefined, body);
    };
    const onError = () => finish(bodyError('request aborted', 'request.aborted', 400));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onError);
  });
}
