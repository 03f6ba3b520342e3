import type { ArgumentsHost } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { GatewayExceptionFilter } from './exception.filter.js';

function answer(error: unknown, path = '/api/user/') {
  const sent: { status?: number; body?: unknown } = {};
  const res = {
    headersSent: false,
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
});
