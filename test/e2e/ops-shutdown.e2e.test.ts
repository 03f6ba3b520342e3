import { connect } from 'node:net';
import Database from 'better-sqlite3';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import type { ApiClient } from '../support/api-client.js';
import { ensureServerBuilt } from '../support/built-server.js';
import { readyToRelay, startGatewayChild, type GatewayChild } from '../support/gateway-child.js';
import { waitFor } from './relay-fixture.js';

const MODEL = 'drain-model';
const STREAMS = 50;
/** 20 words at 100 ms: each stream lasts about two seconds. */
const REPLY = Array.from({ length: 20 }, (_, i) => `w${i}`).join(' ');

async function prepare(gw: GatewayChild, up: FakeUpstream): Promise<{ root: ApiClient; key: string; userId: number }> {
  const root = await gw.setupRoot();
  const key = await readyToRelay(root, {
    name: 'drain',
    models: [MODEL],
    upstreamUrl: up.url,
    options: { ModelRatio: { [MODEL]: 1 }, CompletionRatio: { [MODEL]: 1 } },
  });
  return { root, key, userId: root.userId! };
}

function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

interface StreamResult {
  requestId: string;
  text: string;
  completed: boolean;
  error?: string;
}

describe('graceful shutdown of the built gateway', () => {
  let up: FakeUpstream;

  beforeAll(async () => {
    ensureServerBuilt();
    up = await startFakeUpstream({ record: false });
  }, 240_000);
  afterAll(() => up?.close());

  it(`on SIGTERM with ${STREAMS} streams in flight: refuses new connections, finishes every stream, settles each once, loses no log row`, async () => {
    up.script({ path: '/v1/chat/completions', reply: REPLY, chunkDelayMs: 100 });
    // Counters and log rows are only written by the shutdown flush: the batch timers are far away.
    const gw = await startGatewayChild({ SHUTDOWN_TIMEOUT: '25', BATCH_UPDATE_ENABLED: 'true', BATCH_UPDATE_INTERVAL: '600' });
    const { root, key, userId } = await prepare(gw, up);
    const before = (await root.get('/api/user/self')).body.data as { quota: number; used_quota: number };

    const openai = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    let started = 0;
    let allStarted!: () => void;
    const streaming = new Promise<void>((resolve) => (allStarted = resolve));
    const runs = Array.from({ length: STREAMS }, async (_, i): Promise<StreamResult> => {
      const result: StreamResult = { requestId: '', text: '', completed: false };
      try {
        const { data, response } = await openai.chat.completions
          .create({
            model: MODEL,
            stream: true,
            stream_options: { include_usage: true },
            messages: [{ role: 'user', content: `hello ${i}` }],
          })
          .withResponse();
        result.requestId = response.headers.get('x-oneapi-request-id') ?? '';
        let first = true;
        for await (const chunk of data) {
          if (first && ++started === STREAMS) allStarted();
          first = false;
          result.text += chunk.choices[0]?.delta?.content ?? '';
        }
        result.completed = true;
      } catch (error) {
        result.error = (error as Error).message;
      }
      return result;
    });
    await streaming;
    gw.child.kill('SIGTERM');

    // The listener closes at once: a new connection is refused while the streams carry on.
    const deadline = Date.now() + 5000;
    while (!(await refused(gw.url)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await refused(gw.url)).toBe(true);

    const results = await Promise.all(runs);
    const exit = await gw.exited;
    expect(exit, gw.output().slice(-3000)).toEqual({ code: 0, signal: null });
    for (const result of results) {
      expect(result.error).toBeUndefined();
      expect(result.completed).toBe(true);
      expect(result.text).toBe(REPLY);
    }

    const db = new Database(gw.sqlitePath, { readonly: true });
    try {
      const rows = db.prepare('SELECT request_id, quota FROM logs WHERE type = 2 AND user_id = ?').all(userId) as {
        request_id: string;
        quota: number;
      }[];
      const ids = results.map((r) => r.requestId).sort();
      expect(new Set(ids).size).toBe(STREAMS);
      expect(rows.map((r) => r.request_id).sort()).toEqual(ids);
      const charged = rows.reduce((sum, r) => sum + Number(r.quota), 0);
      expect(charged).toBeGreaterThan(0);
      const user = db.prepare('SELECT quota, used_quota, request_count FROM users WHERE id = ?').get(userId) as Record<string, number>;
      // Settled exactly once: what left the balance is what the logs say was charged, nothing still reserved.
      expect(Number(user.used_quota) - before.used_quota).toBe(charged);
      expect(before.quota - Number(user.quota)).toBe(charged);
      const channel = db.prepare('SELECT used_quota FROM channels').get() as { used_quota: number };
      expect(Number(channel.used_quota)).toBe(charged);
    } finally {
      db.close();
    }
  }, 120_000);

  it('at the deadline cuts the streams still open, and still settles and logs each of them once', async () => {
    up.reset();
    // Forty words at 500 ms: far longer than the 2 s the operator allows.
    up.script({ path: '/v1/chat/completions', reply: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '), chunkDelayMs: 500 });
    const gw = await startGatewayChild({ SHUTDOWN_TIMEOUT: '2' });
    const { root, key, userId } = await prepare(gw, up);
    const before = (await root.get('/api/user/self')).body.data as { quota: number; used_quota: number };
    const openai = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const count = 10;
    let started = 0;
    let allStarted!: () => void;
    const streaming = new Promise<void>((resolve) => (allStarted = resolve));
    const runs = Array.from({ length: count }, async (): Promise<{ requestId: string; ended: 'complete' | 'cut' }> => {
      const { data, response } = await openai.chat.completions
        .create({ model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'long' }] })
        .withResponse();
      const requestId = response.headers.get('x-oneapi-request-id') ?? '';
      try {
        let first = true;
        for await (const _chunk of data) {
          if (first && ++started === count) allStarted();
          first = false;
        }
        return { requestId, ended: 'complete' };
      } catch {
        return { requestId, ended: 'cut' };
      }
    });
    await streaming;
    const signalled = Date.now();
    gw.child.kill('SIGTERM');
    const results = await Promise.all(runs);
    expect(await gw.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(10_000);
    expect(results.every((r) => r.ended === 'cut')).toBe(true);

    const db = new Database(gw.sqlitePath, { readonly: true });
    try {
      const rows = db.prepare('SELECT request_id, quota, other FROM logs WHERE type = 2 AND user_id = ?').all(userId) as {
        request_id: string;
        quota: number;
        other: string;
      }[];
      expect(rows.map((r) => r.request_id).sort()).toEqual(results.map((r) => r.requestId).sort());
      for (const row of rows) expect(JSON.parse(row.other).stream_status?.status).toBe('error');
      const charged = rows.reduce((sum, r) => sum + Number(r.quota), 0);
      const user = db.prepare('SELECT quota, used_quota FROM users WHERE id = ?').get(userId) as Record<string, number>;
      expect(before.quota - Number(user.quota)).toBe(charged);
      expect(Number(user.used_quota) - before.used_quota).toBe(charged);
    } finally {
      db.close();
    }
  }, 120_000);

  it('exits at once on a second SIGTERM', async () => {
    up.reset();
    up.script({ path: '/v1/chat/completions', reply: REPLY, chunkDelayMs: 2000 });
    const gw = await startGatewayChild({ SHUTDOWN_TIMEOUT: '60' });
    const { key } = await prepare(gw, up);
    const openai = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const { data } = await openai.chat.completions
      .create({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'slow' }] })
      .withResponse();
    const reading = (async () => {
      try {
        for await (const _chunk of data) void _chunk;
        return 'complete';
      } catch {
        return 'cut';
      }
    })();
    gw.child.kill('SIGTERM');
    await waitFor(async () => (/SIGTERM received: draining/.test(gw.output()) ? true : undefined), 'the first SIGTERM to be taken');
    expect(gw.child.exitCode).toBeNull();
    const sent = Date.now();
    gw.child.kill('SIGTERM');
    const exit = await gw.exited;
    expect(exit.code).toBe(143);
    // A drain would have finished the stream (a chunk every 2 s); the forced exit cuts it, well before the
    // 60 s SHUTDOWN_TIMEOUT could have ended it.
    expect(await reading).toBe('cut');
    expect(Date.now() - sent).toBeLessThan(30_000);
  }, 120_000);
});
