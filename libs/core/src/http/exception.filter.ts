import { Catch, HttpException, Inject, Logger, Optional, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError } from '../errors/app-error.js';
import { serverFaultOf } from '../errors/server-fault.js';
import {
  anthropicError,
  carriesRequestId,
  isAnthropicPath,
  isRelayPath,
  openAiError,
  requestIdHeaderOf,
  withRequestId,
} from './relay-paths.js';

/** Lets the gateway answer unknown non-API GETs (the console's SPA routes) instead of a 404. */
export const NOT_FOUND_FALLBACK = Symbol('NOT_FOUND_FALLBACK');
export type NotFoundFallback = (req: Request, res: Response) => boolean;

interface ErrorView {
  status: number;
  relayStatus: number;
  message: string;
  code: string;
  /** The console body carries `code` too (only where new-api's does). */
  exposeCode?: boolean;
}

/**
 * The one error filter. The console edge gets `{success:false, message}`; relay paths get OpenAI's
 * error body (Anthropic's on /v1/messages). Unexpected errors are logged with their stack and answered with a generic 500.
 */
@Catch()
export class GatewayExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(@Optional() @Inject(NOT_FOUND_FALLBACK) private readonly fallback?: NotFoundFallback) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    if (res.headersSent) {
      res.end();
      return;
    }
    const view = this.describe(exception, req);
    if (view.status === 404 && req.method === 'GET' && this.fallback?.(req, res)) return;

    if (isRelayPath(req.path)) {
      const type = view.relayStatus >= 500 ? 'new_api_error' : 'invalid_request_error';
      // A token refusal ends with the request id (new-api's auth middleware); a route's own errors do not.
      const message = carriesRequestId(exception) ? withRequestId(view.message, requestIdHeaderOf(res)) : view.message;
      const body = isAnthropicPath(req.path) ? anthropicError(message, type) : openAiError(message, type, view.code);
      res.status(view.relayStatus).json(body);
      return;
    }
    res
      .status(view.status)
      .json(view.exposeCode ? { success: false, message: view.message, code: view.code } : { success: false, message: view.message });
  }

  private describe(exception: unknown, req: Request): ErrorView {
    if (exception instanceof AppError) {
      const exposeCode = 'exposeCode' in exception && exception.exposeCode === true;
      return { status: exception.status, relayStatus: exception.relayStatus, message: exception.message, code: exception.code, exposeCode };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const message = status === 404 ? `Invalid URL (${req.method} ${req.path})` : httpMessage(exception);
      return { status, relayStatus: status, message, code: status === 404 ? 'not_found' : 'http_error' };
    }
    if (isValueOutOfRange(exception)) {
      this.logger.warn(`${req.method} ${req.path}: a value the database cannot store (${(exception as Error).message.slice(0, 120)})`);
      return { status: 200, relayStatus: 400, message: 'invalid input: a value is out of range', code: 'invalid_input' };
    }
    const fault = serverFaultOf(exception);
    if (fault.status === 503)
      this.logger.warn(`${req.method} ${req.path}: database unavailable (${(exception as Error).message.slice(0, 200)})`);
    else this.logger.error(`${req.method} ${req.path} failed`, exception instanceof Error ? exception.stack : String(exception));
    return { status: fault.status, relayStatus: fault.status, message: fault.message, code: fault.code };
  }
}

/**
 * The database refused a value a caller sent, past the column's type (an id of 2^31 in an INTEGER column on
 * PostgreSQL, a string too long on MySQL strict mode, a NUL byte in PostgreSQL text): bad input, not a server fault. Recognised by the
 * drivers' codes (SQLSTATE 22xxx: data exceptions; MySQL's out-of-range and truncation errors), so no
 * database library is needed here and every route is covered, whatever its contract checks.
 */
const OUT_OF_RANGE_CODES = new Set([
  '22001',
  '22003',
  '22007',
  '22008',
  // A NUL byte or an invalid UTF-8 sequence in a text value (PostgreSQL refuses both).
  '22021',
  '22P02',
  '22P05',
  'ER_WARN_DATA_OUT_OF_RANGE',
  'ER_DATA_TOO_LONG',
  'ER_TRUNCATED_WRONG_VALUE',
  'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD',
]);

function isValueOutOfRange(exception: unknown): boolean {
  if (!(exception instanceof Error) || exception.name !== 'QueryFailedError') return false;
  const code = (exception as { driverError?: { code?: unknown } }).driverError?.code;
  return typeof code === 'string' && OUT_OF_RANGE_CODES.has(code);
}

function httpMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}
