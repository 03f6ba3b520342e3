import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAT, startRelayFixture, type RelayFixture } from './relay-fixture.js';
import { relayError } from '../support/relay-error.js';

/**
 * The relay's front door (libs/relay/src/http/relay-entry.ts) serves /v1 POSTs off the bare Node server,
 * ahead of Express: what Express used to give those routes must still hold. Database-independent, so
 * SQLite only. The gateway trusts loopback proxies here, as behind a local TLS terminator.
 */
describe('relay edge: the front door ahead of Express', () => {
  let f: RelayFixture;
  let key: string;
  const chat = JSON.stringify({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] });

  beforeAll(async () => {
    f = await startRelayFixture('sqlite', { TRUSTED_PROXIES: 'loopback' });
    await f.channel();
    key = (await f.token()).key;
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  const post = (path: string, headers: Record<string, string> = {}, body: string | Uint8Array<ArrayBuffer> = chat) =>
    fetch(`${f.gw.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
      body,
    });

  it('answers browser preflights and cross-origin calls on /v1 for any origin, never on the session-authenticated playground', async () => {
    const preflight = await fetch(`${f.gw.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://chat.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization,content-type');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    expect(preflight.headers.get('x-oneapi-request-id')).toBeTruthy();

    const call = await post('/v1/chat/completions', { Origin: 'https://chat.example' });
    expect(call.status).toBe(200);
    expect(call.headers.get('access-control-allow-origin')).toBe('*');
    expect(call.headers.get('x-content-type-options')).toBe('nosniff');
    // Same-origin and non-browser callers send no Origin and get no CORS headers.
    expect((await post('/v1/chat/completions')).headers.get('access-control-allow-origin')).toBeNull();

    const playground = await fetch(`${f.gw.url}/pg/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://evil.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'new-api-user,content-type',
      },
    });
    expect(playground.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('takes the key from ?key=, a trailing slash, and gzip bodies (through the regular parser)', async () => {
    const byQuery = await fetch(`${f.gw.url}/v1/chat/completions?key=${encodeURIComponent(key)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chat,
    });
    expect(byQuery.status).toBe(200);
    const twice = await fetch(`${f.gw.url}/v1/chat/completions?key=${key}&key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chat,
    });
    expect(twice.status).toBe(401);
    expect((await post('/v1/chat/completions/')).status).toBe(200);
    const gzipped = await post('/v1/chat/completions', { 'content-encoding': 'gzip' }, new Uint8Array(gzipSync(chat)));
    expect(gzipped.status).toBe(200);
    expect(f.up.requests).toHaveLength(3);
  });

  it('answers body errors and unknown methods in OpenAI error shape with a request id', async () => {
    const broken = await post('/v1/chat/completions', {}, '{"model":');
    expect(broken.status).toBe(400);
    expect(relayError({ headers: broken.headers, body: await broken.json() }).error).toMatchObject({
      type: 'invalid_request_error',
      message: 'request body is not valid JSON',
    });
    expect(broken.headers.get('x-oneapi-request-id')).toMatch(/^\d{17}[A-Za-z0-9]{8}$/);
    const text = await post('/v1/chat/completions', { 'content-type': 'text/plain' });
    expect(text.status).toBe(400);
    expect((await text.json()).error.type).toBe('invalid_request_error');
    const get = await fetch(`${f.gw.url}/v1/chat/completions`, { headers: { authorization: `Bearer ${key}` } });
    expect(get.status).toBe(404);
    expect((await get.json()).error).toBeDefined();
    expect(get.headers.get('x-oneapi-request-id')).toBeTruthy();
    expect(f.up.requests).toHaveLength(0);
  });

  it('logs the client address from X-Forwarded-For only for users who turned record_ip_log on', async () => {
    const first = await post('/v1/chat/completions', { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' });
    expect(first.status).toBe(200);
    expect((await f.settled(first.headers.get('x-oneapi-request-id'))).ip).toBe('');

    const saved = await f.user.client.put('/api/user/setting', { record_ip_log: true });
    expect(saved.body.success, saved.text).toBe(true);
    const second = await post('/v1/chat/completions', { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' });
    expect(second.status).toBe(200);
    // Loopback is trusted, 203.0.113.9 is not: the address stops there, whatever the client wrote before it.
    expect((await f.settled(second.headers.get('x-oneapi-request-id'))).ip).toBe('203.0.113.9');
    const bad = await f.user.client.put('/api/user/setting', { record_ip_log: 'yes' });
    expect(bad.body).toMatchObject({ success: false, message: 'record_ip_log must be a boolean' });
  });
});
