import { Injectable, SetMetadata, StreamableFile, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Readable } from 'node:stream';
import { map, type Observable } from 'rxjs';
import { isJsonText, isRaw, isWithMessage, type Envelope } from './envelope.js';

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

/** Writes at least this many characters at a time (a 90-day answer has thousands of small runs). */
const CHUNK_CHARS = 256 * 1024;

/**
 * The envelope around an array given as runs, in chunks: the runs are written as they are, so a 30 MB answer
 * is neither joined into one string nor converted to bytes and hashed (Express's ETag) in one piece.
 */
export function* envelopeChunks(parts: readonly string[]): Generator<string> {
  let pending = ['{"success":true,"message":"","data":['];
  let size = pending[0]?.length ?? 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (i > 0) pending.push(',');
    pending.push(part);
    size += part.length;
    if (size >= CHUNK_CHARS) {
      yield pending.join('');
      pending = [];
      size = 0;
    }
  }
  pending.push(']}');
  yield pending.join('');
}
