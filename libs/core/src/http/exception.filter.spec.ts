import type { ArgumentsHost } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { GatewayExceptionFilter } from './exception.filter.js';

const REQUEST_ID = '20261128204700123abcdEFGH';

function answer(error: unknown, path = '/api/user/') {
  const sent: { status?: number; body?: unknown } = {};
  const res = {
    headersSent: false,
    getHeader: (name: string) => (name === 'X-Oneapi-Request-Id' ? REQUEST_ID : undefined),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: unknown) {
      sent.body = body;
    },
  };
  const host = {
    switchToHttp: () => ({ getRequest: () => ({ method: 'PUT', path }), getResponse: () => res }),
  } as unknown as ArgumentsHost;
  new GatewayExceptionFilter().catch(error, host);
  return sent;
}

const queryFailed = (code: string) =>
  Object.assign(new Error('value "2147483648" is out of range for type integer'), { name: 'QueryFailedError', driverError: { code } });

describe('GatewayExceptionFilter', () => {
  it('answers a value the database cannot store as bad input, on the console and on the relay', () => {
    expect(answer(queryFailed('22003'))).toEqual({
      status: 200,
      body: { success: false, message: 'invalid input: a value is out of range' },
    });
    expect(answer(queryFailed('ER_WARN_DATA_OUT_OF_RANGE'), '/v1/models')).toMatchObject({ status: 400 });
  });

  it('keeps every other database failure a 500 without detail', () => {
    expect(answer(queryFailed('23505'))).toEqual({ status: 500, body: { success: false, message: 'internal server error' } });
    expect(answer(new Error('boom'))).toEqual({ status: 500, body: { success: false, message: 'internal server error' } });
  });

  it('answers a database that cannot be reached with a 503 to retry, in each envelope', () => {
    const unavailable = { success: false, message: 'the database is unavailable, try again shortly' };
    expect(answer(queryFailed('ECONNREFUSED'))).toEqual({ status: 503, body: unavailable });
    expect(answer(queryFailed('57P01'))).toEqual({ status: 503, body: unavailable });
    expect(
      answer(Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST' })),
    ).toEqual({
      status: 503,
      body: unavailable,
    });
    expect(answer(new Error('Connection terminated unexpectedly'), '/v1/chat/completions')).toEqual({
      status: 503,
      body: { error: { message: unavailable.message, type: 'new_api_error', param: '', code: 'database_unavailable' } },
    });
  });

  it("ends a token refusal's message with the request id on the relay, in OpenAI's and Anthropic's shapes only", () => {
    const refusal = Object.assign(new AppError('invalid token', 401, 'invalid_api_key', 401), { appendRequestId: true });
    expect(answer(refusal, '/v1/models')).toEqual({
      status: 401,
      body: {
        error: { message: `invalid token (request id: ${REQUEST_ID})`, type: 'invalid_request_error', param: '', code: 'invalid_api_key' },
      },
    });
    expect(answer(refusal, '/v1/messages/count_tokens')).toEqual({
      status: 401,
      body: { type: 'error', error: { type: 'invalid_request_error', message: `invalid token (request id: ${REQUEST_ID})` } },
    });
    expect(answer(refusal, '/api/usage/token')).toEqual({ status: 401, body: { success: false, message: 'invalid token' } });
    expect(answer(new AppError('model not found', 404, 'model_not_found', 404), '/v1/models').body).toMatchObject({
      error: { message: 'model not found' },
    });
  });
});
