import { describe, expect, it } from 'vitest';
import { RelayError } from '../pipeline/relay-error.js';
import { errorEvent, readHandshake } from './realtime-handshake.js';

const handshake = (extra: Record<string, string> = {}) => ({
  upgrade: 'websocket',
  connection: 'Upgrade',
  'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
  'sec-websocket-version': '13',
  ...extra,
});

describe('the Realtime handshake', () => {
  it("takes the key from the `openai-insecure-api-key.` subprotocol, as new-api's TokenAuth does", () => {
    expect(
      readHandshake('GET', handshake({ 'sec-websocket-protocol': 'realtime, openai-insecure-api-key.sk-abc-1, openai-beta.realtime-v1' })),
    ).toEqual({
      protocolKey: 'sk-abc-1',
      beta: true,
    });
    expect(readHandshake('GET', handshake({ 'sec-websocket-protocol': 'realtime, openai-insecure-api-key.' }))).toEqual({
      protocolKey: undefined,
      beta: false,
    });
  });

  it('knows the beta protocol by its header or its subprotocol', () => {
    expect(readHandshake('GET', handshake({ 'openai-beta': 'realtime=v1' }))?.beta).toBe(true);
    expect(readHandshake('GET', handshake())?.beta).toBe(false);
  });

  it('refuses what the WebSocket server would refuse, before any work is done', () => {
    expect(readHandshake('POST', handshake())).toBeUndefined();
    expect(readHandshake('GET', handshake({ upgrade: 'h2c' }))).toBeUndefined();
    expect(readHandshake('GET', handshake({ 'sec-websocket-key': 'short' }))).toBeUndefined();
    expect(readHandshake('GET', handshake({ 'sec-websocket-version': '12' }))).toBeUndefined();
    expect(readHandshake('GET', handshake({ 'sec-websocket-protocol': 'realtime, realtime' }))).toBeUndefined();
    expect(readHandshake('GET', handshake({ 'sec-websocket-protocol': 'realtime, a b' }))).toBeUndefined();
  });

  it("sends errors as new-api's error event, its message ending with the request id", () => {
    const event = JSON.parse(errorEvent(new RelayError('insufficient user quota', 403, 'insufficient_user_quota'), 'req1'));
    expect(event).toEqual({
      type: 'error',
      event_id: 'evt_req1',
      error: { message: 'insufficient user quota (request id: req1)', type: 'new_api_error', param: '', code: 'insufficient_user_quota' },
    });
  });
});
