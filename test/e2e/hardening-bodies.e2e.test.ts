import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/test-gateway.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';

const CHAT = 'relay-chat';
const deep = (n: number) => `{"model":"${CHAT}","messages":[{"role":"user","content":"hi"}],"x":${'['.repeat(n)}${']'.repeat(n)}}`;

/** SQLite only: body reading happens before any database work. */
describe('hardening: hostile request bodies', () => {
  let f: RelayFixture;
  let token: string;
  /** 64 MB of spaces gzipped to about 64 KB: a small bomb, ratio about 1000. */
  let bomb: Buffer;

  const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(`${f.gw.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });

  beforeAll(async () => {
    f = await startRelayFixture('sqlite');
    await f.channel();
    token = (await f.token({ unlimited_quota: true })).key;
    bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 });
  });
  afterAll(() => f?.close());

  it('refuses JSON nested 5,000 levels deep with a 400 in each caller envelope, before any upstream call', async () => {
    f.up.reset();
    const chat = await post('/v1/chat/completions', deep(5000));
    expect(chat.status).toBe(400);
    expect((await chat.json()).error).toMatchObject({ type: 'invalid_request_error', message: 'request body is nested too deeply' });
    const messages = await post('/v1/messages', deep(5000));
    expect(messages.status).toBe(400);
    expect(await messages.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const login = await post('/api/user/login', `{"username":${'['.repeat(5000)}${']'.repeat(5000)}}`);
    expect(login.status).toBe(400);
    expect(await login.json()).toEqual({ success: false, message: 'request body is nested too deeply' });
    expect(f.up.requests).toHaveLength(0);
    // A real body a little below the limit still goes through.
    const ok = await post('/v1/chat/completions', deep(100));
    expect(ok.status).toBe(200);
  });

  it('reads gzip bodies on the relay and on /api', async () => {
    const chat = await post(
      '/v1/chat/completions',
      gzipSync(JSON.stringify({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] })),
      {
        'content-encoding': 'gzip',
      },
    );
    expect(chat.status).toBe(200);
    const login = await post('/api/user/login', gzipSync(JSON.stringify({ username: ROOT.username, password: ROOT.password })), {
      'content-encoding': 'gzip',
    });
    expect((await login.json()).success).toBe(true);
  });

  it('answers a gzip bomb with a 413 on /api/user/login and on the relay, with bounded memory', async () => {
    expect(bomb.length).toBeLessThan(200 * 1024);
    f.up.reset();
    const login = await post('/api/user/login', bomb, { 'content-encoding': 'gzip' });
    expect(login.status).toBe(413);
    expect(await login.json()).toEqual({ success: false, message: 'request body is too large' });
    const chat = await post('/v1/chat/completions', bomb, { 'content-encoding': 'gzip' });
    expect(chat.status).toBe(413);
    expect((await chat.json()).error.message).toBe('request body is too large');
    expect(f.up.requests).toHaveLength(0);

    // 12 at once (the gateway runs in this process): the old parser held ~130 MB each.
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => post(i % 2 ? '/api/user/login' : '/v1/chat/completions', bomb, { 'content-encoding': 'gzip' })),
    );
    clearInterval(sampler);
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(413));
    expect(peak - before).toBeLessThan(200 * 1024 * 1024);
  });
});
