import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { relayError, relayMessage } from '../support/relay-error.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';
import { Agent, fetch as undiciFetch } from 'undici';

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
    expect(relayError({ headers: chat.headers, body: await chat.json() }).error).toMatchObject({
      type: 'invalid_request_error',
      message: 'request body is nested too deeply',
    });
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
    expect(relayMessage({ headers: chat.headers, body: await chat.json() })).toBe('request body is too large');
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

  it('checks the key before reading a relay body: a stranger gets a 401 for a bomb or 16 MB, and nothing is buffered', async () => {
    f.up.reset();
    // Connections of their own: a keep-alive socket the earlier tests' refusals left in the shared pool may be
    // closing when it is picked up again, and a POST on it fails with a reset that says nothing of this route.
    const connections = new Agent();
    const stranger = (body: Buffer, headers: Record<string, string> = {}) =>
      undiciFetch(`${f.gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-not-a-key', 'content-type': 'application/json', ...headers },
        body: new Uint8Array(body),
        dispatcher: connections,
      });
    global.gc?.();
    const before = process.memoryUsage().rss;
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => stranger(bomb, { 'content-encoding': 'gzip' })),
      ...Array.from({ length: 6 }, () => stranger(Buffer.alloc(16 * 1024 * 1024, 0x20))),
    ]);
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(401));
    expect(((await answers[0]!.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    // The test process holds the six 16 MB bodies it sends (about 100 MB); the gateway adds nothing of its own.
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
    expect(f.up.requests).toHaveLength(0);
    await connections.close();
  });

  it('refuses deep nesting on console routes too (as the logged-in user and as root), with bounded memory', async () => {
    const user = f.user.client;
    const deepValue = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    for (const [client, method, path] of [
      [user, 'PUT', '/api/user/self'],
      [user, 'POST', '/api/token/'],
      [f.root, 'PUT', '/api/option/'],
      [f.root, 'POST', '/api/channel/'],
    ] as const) {
      const res = await client.raw(method, path, `{"name":${deepValue}}`);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body).toEqual({ success: false, message: 'request body is nested too deeply' });
    }
    global.gc?.();
    const before = process.memoryUsage().rss;
    const deepest = `{"x":${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}}`;
    const answers = await Promise.all(Array.from({ length: 12 }, () => user.raw('PUT', '/api/user/self', deepest)));
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(400));
    // Twelve 4 MB bodies are read whole (that is the body limit's job), but nothing parses them into trees.
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });

  it('takes small bodies only on the routes that need no login', async () => {
    const padding = 'x'.repeat(100 * 1024);
    for (const path of ['/api/user/login', '/api/user/register', '/api/user/reset', '/api/setup', '/api/user/passkey/login/begin']) {
      const res = await f.gw.client().raw('POST', path, JSON.stringify({ username: 'someone', padding }));
      expect(res.status, path).toBe(413);
      expect(res.body).toEqual({ success: false, message: 'request body is too large' });
    }
    const form = await f.gw
      .client()
      .raw('POST', '/api/user/epay/notify', `a=${padding}`, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(413);
    // A logged-in route still takes a body of that size.
    const self = await f.user.client.put('/api/user/self', { display_name: 'padded', padding });
    expect(self.status).toBe(200);
  });

  it('sets the HTTP server timeouts explicitly', () => {
    const server = f.gw.gateway.app.getHttpServer();
    expect(server.headersTimeout).toBe(30_000);
    expect(server.requestTimeout).toBe(300_000);
    expect(server.keepAliveTimeout).toBe(5_000);
    expect(server.timeout).toBe(600_000);
    // Node's default queue of 511 overflowed when thousands of streams opened at once.
    const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    expect(listenQueueLength(Number(new URL(f.gw.url).port))).toBe(Math.min(4096, somaxconn));
  });
});

/** The listen queue's length of a local TCP port as the kernel reports it (`ss` shows it as Send-Q of a LISTEN socket). */
function listenQueueLength(port: number): number {
  const line = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' }).trim();
  return Number(line.split(/\s+/)[2]);
}

describe('hardening: idle connections and the listen queue', () => {
  let gw: TestGateway;
  // No set-up wizard or login here: with a 2 s idle timeout a slow bcrypt on a busy machine would be cut too.
  beforeAll(async () => {
    gw = await startTestGateway('sqlite', { HTTP_IDLE_TIMEOUT: '2', LISTEN_BACKLOG: '1234' });
  });

  it('listens with a queue of LISTEN_BACKLOG connections (the kernel caps it at somaxconn)', () => {
    const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    expect(listenQueueLength(Number(new URL(gw.url).port))).toBe(Math.min(1234, somaxconn));
  });
  afterAll(() => gw?.close());

  it('closes a connection that sends half a request head and then nothing (HTTP_IDLE_TIMEOUT)', async () => {
    const { port } = new URL(gw.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.write('POST /api/user/login HTTP/1.1\r\nHost: x\r\n');
    const started = Date.now();
    await new Promise<void>((resolve) => socket.on('close', () => resolve()).on('error', () => undefined));
    expect(Date.now() - started).toBeLessThan(15_000);
    // The server still answers everyone else.
    expect((await fetch(`${gw.url}/api/status`)).status).toBe(200);
  });
});
