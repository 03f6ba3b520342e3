import { describe, expect, it } from 'vitest';
import { en } from '../../i18n/en';
import { zh } from '../../i18n/zh';
import { RELAY_ERROR_KINDS, classifyRelayError } from './relay-errors';

const openAi = (message: string, code?: string) => JSON.stringify({ error: { message, type: 'invalid_request_error', code } });

describe('classifyRelayError', () => {
  it('names the failures a playground user can act on', () => {
    expect(classifyRelayError(401, openAi('not logged in or login expired, please log in again', 'unauthorized')).kind).toBe('expired');
    expect(classifyRelayError(403, openAi('insufficient user quota', 'insufficient_user_quota')).kind).toBe('quota');
    expect(classifyRelayError(429, openAi('you have reached the request limit'))).toMatchObject({ kind: 'rateLimited', status: 429 });
    expect(classifyRelayError(503, openAi('no available channel for model x under group default', 'model_not_found')).kind).toBe(
      'noChannel',
    );
    expect(classifyRelayError(403, openAi('group svip is not available to this user', 'group_not_allowed')).kind).toBe('groupNotAllowed');
    expect(classifyRelayError(400, openAi('bad field')).kind).toBe('badRequest');
    expect(classifyRelayError(502, openAi('upstream broke')).kind).toBe('upstream');
  });

  it('keeps the server message as detail, whatever the body shape', () => {
    expect(classifyRelayError(400, openAi('model not found')).detail).toBe('model not found');
    expect(classifyRelayError(200, JSON.stringify({ success: false, message: 'envelope says no' })).detail).toBe('envelope says no');
    expect(classifyRelayError(502, '<html>Bad gateway</html>').detail).toBe('<html>Bad gateway</html>');
    expect(classifyRelayError(504, '').detail).toBe('HTTP 504');
  });

  it('reads an error event that arrives inside a stream (no HTTP status)', () => {
    expect(classifyRelayError(undefined, openAi('upstream reset the stream'))).toEqual({
      kind: 'upstream',
      detail: 'upstream reset the stream',
      status: undefined,
    });
  });
});

describe('relay error texts', () => {
  it('has a Chinese and an English headline for every kind (the key is built at run time)', () => {
    const zhErrors = zh.errors as Record<string, string>;
    for (const kind of RELAY_ERROR_KINDS) {
      expect(en.errors[kind], kind).toBeTruthy();
      expect(zhErrors[kind], kind).toBeTruthy();
    }
  });
});
