import { Injectable, SetMetadata, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { map, type Observable } from 'rxjs';
import { isRaw, isWithMessage, type Envelope } from './envelope.js';

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
    return next.handle().pipe(map((value) => wrap(value)));
  }
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
