import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** JSON deeper than this is refused at the door: no real API body nests so far, and deep trees overflow recursive code later. */
export const MAX_JSON_DEPTH = 128;
/**
 * A compressed body may inflate to at most this many times its wire size (plus INFLATION_SLACK): real JSON
 * compresses 5–20×, a gzip bomb 1000× and more. Checked while inflating, so a bomb costs a few MB, not the body limit.
 */
export const MAX_INFLATION_RATIO = 100;
const INFLATION_SLACK = 1024 * 1024;

/** An error shaped like body-parser's (`type`/`status`), so bodyErrorAnswer answers it like any other body error. */
export function bodyError(message: string, type: string, status: number): Error {
  return Object.assign(new Error(message), { type, status, statusCode: status, expose: true });
}

function decoderFor(encoding: string): Transform | undefined | null {
  switch (encoding) {
    case '':
    case 'identity':
      return undefined;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return null;
  }
}

/**
 * The whole request body, inflated when it is gzip/deflate/br, bounded while it streams: 413 as soon as
 * the wire bytes or the inflated bytes pass `limit`, or the inflated bytes pass MAX_INFLATION_RATIO × the
 * wire bytes, so a small bomb never grows to the body limit in memory. 415 for an unknown encoding,
 * 400 for a broken compressed stream or an aborted upload.
 */
export function readBoundedBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const encoding = String(req.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder = decoderFor(encoding);
  if (decoder === null) {
    req.resume();
    return Promise.reject(bodyError(`unsupported content encoding "${encoding}"`, 'encoding.unsupported', 415));
  }
  if (Number(req.headers['content-length']) > limit) {
    req.resume();
    return Promise.reject(bodyError('request entity too large', 'entity.too.large', 413));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let wire = 0;
    let size = 0;
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      req.off('data', onWire);
      req.off('end', onWireEnd);
      req.off('error', onAbort);
      req.off('aborted', onAbort);
      if (decoder) decoder.destroy();
      if (error) {
        chunks.length = 0;
        req.resume();
        reject(error);
      } else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const tooLarge = () => finish(bodyError('request entity too large', 'entity.too.large', 413));
    const onBody = (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit || (decoder && size > wire * MAX_INFLATION_RATIO + INFLATION_SLACK)) return tooLarge();
      chunks.push(chunk);
    };
    const onWire = (chunk: Buffer) => {
      wire += chunk.length;
      if (wire > limit) return tooLarge();
      if (!decoder) return onBody(chunk);
      // Backpressure: the upload waits while the inflater has output we have not taken yet.
      if (!decoder.write(chunk)) {
        req.pause();
        decoder.once('drain', () => !done && req.resume());
      }
    };
    const onWireEnd = () => (decoder ? decoder.end() : finish());
    const onAbort = () => finish(bodyError('request aborted', 'request.aborted', 400));
    if (decoder) {
      decoder.on('data', onBody);
      decoder.on('end', () => finish());
      decoder.on('error', () => finish(bodyError('request body could not be decompressed', 'encoding.failed', 400)));
    }
    req.on('data', onWire);
    req.on('end', onWireEnd);
    req.on('error', onAbort);
    req.on('aborted', onAbort);
  });
}

/**
 * Whether JSON text nests objects/arrays deeper than `max`: one pass over the bytes, skipping strings,
 * with no parse. A body shorter than `max` bytes cannot, so small bodies cost nothing.
 */
export function jsonTooDeep(bytes: Buffer, max = MAX_JSON_DEPTH): boolean {
  if (bytes.length <= max) return false;
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 0x22) {
      // Strings are most of a body: jump to their closing quote with the native search.
      i = closingQuote(bytes, i + 1);
      if (i < 0) return false;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** The index of the quote that ends a string starting at `from` (one not escaped by an odd run of backslashes), or -1. */
function closingQuote(bytes: Buffer, from: number): number {
  for (let at = bytes.indexOf(0x22, from); at >= 0; at = bytes.indexOf(0x22, at + 1)) {
    let slashes = 0;
    while (bytes[at - 1 - slashes] === 0x5c) slashes++;
    if (slashes % 2 === 0) return at;
  }
  return -1;
}

/** body-parser's strict JSON (an object or an array; empty is `{}`), refusing bodies nested deeper than MAX_JSON_DEPTH. */
export function parseJsonBody(bytes: Buffer): unknown {
  if (jsonTooDeep(bytes)) throw bodyError(`request body is nested deeper than ${MAX_JSON_DEPTH} levels`, 'entity.too.deep', 400);
  const text = bytes.toString('utf8');
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const first = /\S/.exec(body)?.[0];
  if (first === undefined) return {};
  if (first !== '{' && first !== '[') throw bodyError('request body is not valid JSON', 'entity.parse.failed', 400);
  try {
    return JSON.parse(body);
  } catch {
    throw bodyError('request body is not valid JSON', 'entity.parse.failed', 400);
  }
}

/** body-parser's `verify` hook with the depth check, for the parsers that still take the other charsets. */
export function verifyJsonDepth(_req: unknown, _res: unknown, bytes: Buffer): void {
  if (jsonTooDeep(bytes)) throw bodyError(`request body is nested deeper than ${MAX_JSON_DEPTH} levels`, 'entity.too.deep', 400);
}
