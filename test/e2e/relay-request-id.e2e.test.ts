import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayError, relayMessage } from '../support/relay-error.js';
import { CHAT, startRelayFixture, type RelayFixture } from './relay-fixture.js';

/**
 * new-api ends every relay error message with ` (request id: <id>)`, the id of the answer's
 * X-Oneapi-Request-Id header, whatever the client's format and wherever the relay refuses (its token
 * check included); the console's envelope and the answers of plain handlers carry none. The id is
 * the same on every database, so SQLite only.
 */
describe('relay error messages end with the request id', () => {
  let f: RelayFixture;
  let key: string;

  beforeAll(async () => {
    f = await startRelayFixture('sqlite');
    await f.channel();
    key = (await f.token()).key;
  });
  afterAll(async () => {
    await f?.close();
  });

  const post = (path: string, body: unknown, headers: Record<string, string>) => f.gw.client().post(path, body, headers);

  it('on an OpenAI route, in the error of the relay', async () => {
    const res = await post(
      '/v1/chat/completions',
      { model: 'served-by-nobody', messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${key}` },
    );
    expect(res.status).toBe(503);
    expect(res.headers.get('x-oneapi-request-id')).toMatch(/^\d{17}[A-Za-z0-9]{8}$/);
    expect(relayError(res)).toEqual({
      error: {
        message: 'no available channel for model served-by-nobody under group default',
        type: 'new_api_error',
        param: '',
        code: 'model_not_found',
      },
    });
  });

  it("on the Anthropic route, in Anthropic's error shape", async () => {
    const res = await post('/v1/messages', { model: CHAT, max_tokens: 8 }, { 'x-api-key': key });
    expect(res.status).toBe(400);
    expect(relayError(res)).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'messages: field required' } });
  });

  it('on a refused key, from every front door of the relay', async () => {
    const chat = await post('/v1/chat/completions', { model: CHAT, messages: [] }, { authorization: 'Bearer sk-nope' });
    expect(chat.status).toBe(401);
    expect(relayError(chat)).toEqual({
      error: { message: 'invalid token', type: 'new_api_error', param: '', code: 'invalid_api_key' },
    });
    const messages = await post('/v1/messages', { model: CHAT, max_tokens: 8, messages: [] }, { 'x-api-key': 'sk-nope' });
    expect(messages.status).toBe(401);
    expect(relayError(messages)).toEqual({ type: 'error', error: { type: 'authentication_error', message: 'invalid token' } });
    const models = await f.gw.client().get('/v1/models', { authorization: 'Bearer sk-nope' });
    expect(models.status).toBe(401);
    expect(relayMessage(models)).toBe('invalid token');
    const billing = await f.gw.client().get('/dashboard/billing/subscription', { authorization: 'Bearer sk-nope' });
    expect(billing.status).toBe(401);
    expect(relayMessage(billing)).toBe('invalid token');
    const task = await post('/mj/submit/imagine', { prompt: 'x' }, { authorization: 'Bearer sk-nope' });
    expect(task.status).toBe(401);
    expect(relayMessage(task)).toBe('invalid token');
  });

  it("leaves the console's envelope and the plain handlers' answers as they are", async () => {
    const unknownModel = await f.gw.client().get('/v1/models/served-by-nobody', { authorization: `Bearer ${key}` });
    expect(unknownModel.status).toBe(404);
    expect(unknownModel.body.error.message).toBe("the model 'served-by-nobody' does not exist");
    const unknownPath = await f.gw.client().get('/v1/nothing-here');
    expect(unknownPath.body.error.message).toBe('Invalid URL (GET /v1/nothing-here)');
    const consoleRefusal = await f.gw.client().get('/api/user/self');
    expect(consoleRefusal.status).toBe(401);
    expect(consoleRefusal.body.message).not.toContain('request id');
  });
});
