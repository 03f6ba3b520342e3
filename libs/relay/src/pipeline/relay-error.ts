import { AppError, serverFaultOf } from '@gw/core';

/** The OpenAI error body the relay answers with. */
export interface RelayErrorBody {
  error: { message: string; type: string; param: string; code: string | number | null };
}

/**
 * A refusal or failure with its exact OpenAI error fields. Gateway-made errors carry new-api's
 * `new_api_error` type; upstream errors keep the type and code the provider sent.
 */
export class RelayError extends AppError {
  constructor(
    message: string,
    readonly httpStatus: number,
    readonly errorCode: string | number | null,
    readonly type = 'new_api_error',
  ) {
    super(message, httpStatus, typeof errorCode === 'string' ? errorCode : String(errorCode ?? 'error'), httpStatus);
  }

  /** The OpenAI body; `message` replaces the error's own (with the request id appended, say). */
  body(message = this.message): RelayErrorBody {
    return { error: { message, type: this.type, param: '', code: this.errorCode } };
  }
}

export const badRequest = (message: string, code = 'invalid_request') => new RelayError(message, 400, code, 'invalid_request_error');

/** Any error as the relay's status + body (AppErrors from other libs keep their relay status and code). */
export function toRelayError(error: unknown): RelayError {
  if (error instanceof RelayError) return error;
  if (error instanceof AppError) {
    const status = error.relayStatus;
    return new RelayError(
      error.message,
      status,
      error.code,
      status >= 500 || status === 401 || status === 403 || status === 429 ? 'new_api_error' : 'invalid_request_error',
    );
  }
  const fault = serverFaultOf(error);
  return new RelayError(fault.message, fault.status, fault.code);
}
