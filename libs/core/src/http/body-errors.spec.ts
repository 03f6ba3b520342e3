import { describe, expect, it } from 'vitest';
import { bodyErrorAnswer } from './body-errors.js';

const tooLarge = { type: 'entity.too.large', status: 413 };
const broken = { type: 'entity.parse.failed', status: 400 };

describe('bodyErrorAnswer', () => {
  it("answers in the caller's shape: envelope, OpenAI or Anthropic", () => {
    expect(bodyErrorAnswer(broken, '/api/user/login')).toEqual({
      status: 400,
      body: { success: false, message: 'request body is not valid JSON' },
    });
    expect(bodyErrorAnswer(tooLarge, '/v1/chat/completions')).toEqual({
      status: 413,
      body: { error: { message: 'request body is too large', type: 'invalid_request_error', param: '', code: 'invalid_request' } },
    });
    expect(bodyErrorAnswer(broken, '/v1/messages')).toEqual({
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'request body is not valid JSON' } },
    });
  });

  it("ends the relay's messages with the request id, never the console's", () => {
    const id = '20261128204700123abcdEFGH';
    expect(bodyErrorAnswer(tooLarge, '/v1/chat/completions', id)?.body).toEqual({
      error: {
        message: `request body is too large (request id: ${id})`,
        type: 'invalid_request_error',
        param: '',
        code: 'invalid_request',
      },
    });
    expect(bodyErrorAnswer(broken, '/v1/messages', id)?.body).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: `request body is not valid JSON (request id: ${id})` },
    });
    expect(bodyErrorAnswer(broken, '/api/user/login', id)?.body).toEqual({ success: false, message: 'request body is not valid JSON' });
  });

  it('keeps 4xx statuses, turns anything else into 400, and ignores errors that are not body errors', () => {
    expect(bodyErrorAnswer({ type: 'request.aborted', status: 400 }, '/api/x')?.status).toBe(400);
    expect(bodyErrorAnswer({ type: 'encoding.unsupported', status: 415 }, '/api/x')).toEqual({
      status: 415,
      body: { success: false, message: 'request body could not be read' },
    });
    expect(bodyErrorAnswer({ type: 'stream.not.readable', status: 500 }, '/api/x')?.status).toBe(400);
    expect(bodyErrorAnswer(new Error('boom'), '/api/x')).toBeUndefined();
  });
});
