import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** `application/json`, optionally with a UTF-8 charset: the only shape the fast reader takes. */
const PLAIN_JSON = /^application\/json\s*(;\s*charset\s*=\s*"?utf-?8"?\s*)?$/i;

/** An error shaped like body-parser's, so the bootstrap's body error handler answers it (OpenAI 4xx). */
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
 * The relay's JSON body reader. Plain uncompressed UTF-8 JSON (what every client sends) is read and
 * parsed here directly, which costs a fraction of body-parser's generic pipeline; anything else
 * (gzip/deflate bodies, other charsets, other content types) goes to `fallback`, the regular
 * express.json parser, so every body body-parser accepted is still accepted. Errors carry
 * body-parser's `type`/`status` (413 over the limit, 400 for broken JSON or an aborted upload).
 */
export function relayJsonBody(limit: number, fallback: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const type = req.headers['content-type'];
    const encoding = req.headers['content-encoding'];
    if (typeof type !== 'string' || !PLAIN_JSON.test(type) || (encoding !== undefined && encoding.toLowerCase() !== 'identity')) {
      fallback(req, res, next);
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      req.resume();
      next(bodyError('request entity too large', 'entity.too.large', 413));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      next(error);
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
      try {
        req.body = parseStrict(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
      } catch {
        finish(bodyError('request body is not valid JSON', 'entity.parse.failed', 400));
        return;
      }
      finish();
    };
    const onError = () => finish(bodyError('request aborted', 'request.aborted', 400));
    const onAborted = onError;
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  };
}
