import { Injectable, SetMetadata, StreamableFile, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Readable } from 'node:stream';
import { map, type Observable } from 'rxjs';
import { isJsonText, isRaw, isWithMessage, type Envelope, type JsonRun } from './envelope.js';

const SKIP_ENVELOPE = 'gw:skip-envelope';

/** Marks a controller (relay, SSE) whose handlers write their own bodies. */
export const NoEnvelope = () => SetMetadata(SKIP_ENVELOPE, true);

/** Wraps every console handler's return value in `{success:true, message, data}`. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const skip = this.reflector.getAllAndOverride<boolean>(SKIP_ENVELOPE, [context.getHandler(), context.getClass()]);
    if (skip || context.getType() !== 'http') return next.handle();
    answerOkOnCreate(context);
    return next.handle().pipe(
      map((value) => {
        if (!isJsonText(value)) return wrap(value);
        // A string body is sent as it is; the type says it is JSON (Express would call it text/html).
        context.switchToHttp().getResponse<{ type(value: string): unknown }>().type('application/json');
        if (value.parts) return new StreamableFile(Readable.from(envelopeChunks(value.parts)), { type: 'application/json' });
        return `{"success":true,"message":"","data":${value.text}}`;
      }),
    );
  }
}

/**
 * new-api answers every console call with HTTP 200 and puts the outcome in the envelope; Nest's default
 * for POST is 201. Nest sets the route's status before the interceptors run, so one place turns a 201
 * back into 200 for every enveloped route (an explicit @HttpCode other than 201 is left alone).
 */
function answerOkOnCreate(context: ExecutionContext): void {
  const response = context.switchToHttp().getResponse<{ statusCode?: number; status?(code: number): unknown }>();
  if (response?.statusCode === 201 && typeof response.status === 'function') response.status(200);
}

function wrap(value: unknown): unknown {
  if (isRaw(value)) return value.body;
  if (isWithMessage(value)) {
    const body: Envelope = { success: true, message: value.message };
    if (value.data !== undefined) body.data = value.data;
    return body;
  }
  const body: Envelope = { success: true, message: '' };
  if (value !== undefined) body.data = value;
  return body;
}

/** Small runs are gathered into chunks of at least this many bytes (a 90-day answer has thousands of them). */
const CHUNK_BYTES = 256 * 1024;
/** A run of bytes this long is written as it is, not copied into a chunk. */
const OWN_CHUNK_BYTES = 64 * 1024;
const HEAD = Buffer.from('{"success":true,"message":"","data":[');
const COMMA = Buffer.from(',');
const TAIL = Buffer.from(']}');

/**
 * The envelope around an array given as runs, in chunks of bytes: the runs are written as they are, so a 30 MB
 * answer is neither joined into one string nor hashed (Express's ETag) in one piece. A long run the database
 * gave as bytes (a stored hour) goes to the socket as it is, without being decoded into a string, encoded back
 * or copied.
 */
export function* envelopeChunks(parts: readonly JsonRun[]): Generator<Uint8Array> {
  let pending: Uint8Array[] = [HEAD];
  let size = HEAD.length;
  const flush = () => {
    const chunk = Buffer.concat(pending, size);
    pending = [];
    size = 0;
    return chunk;
  };
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as JsonRun;
    if (i > 0) {
      pending.push(COMMA);
      size += 1;
    }
    if (typeof part !== 'string' && part.length >= OWN_CHUNK_BYTES) {
      yield flush();
      yield part;
      continue;
    }
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    pending.push(bytes);
    size += bytes.length;
    if (size >= CHUNK_BYTES) yield flush();
  }
  pending.push(TAIL);
  size += TAIL.length;
  yield flush();
}
