import { type IncomingHttpHeaders, request } from 'node:http';
import { connect, createServer } from 'node:net';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/beta/realtime/ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { TokenCounter } from '../../libs/relay/src/pricing/token-counter.js';
import { type FakeRealtime, REALTIME_USAGE, startFakeRealtime } from '../fake-upstream/realtime.js';
import { testDatabases } from '../support/databases.js';
import { scriptResolver } from './rebind-resolver.js';
import { COMPLETION_RATIOS, RATIOS, type RelayFixture, startRelayFixture, waitFor } from './relay-fixture.js';

/** The client's model, mapped by the channel to the provider's name for it. */
const RT = 'rt-model';
const RT_UPSTREAM = 'rt-model-upstream';
/** A model whose only channel points at a port nobody listens on. */
const RT_DOWN = 'rt-down';
/** A model whose only channel an admin saved on a name that resolved public then (threats S5). */
const RT_GUARDED = 'rt-guarded';
/** ModelRatio 2.5 × PreConsumedQuota 500: the reservation each response is served on. */
const RESERVE = 1250;
/**
 * REALTIME_USAGE priced as new-api's audio quota: (400 text in + 600 audio in × 8 + 100 text out × 4 + 200 audio
 * out × 8 × 2) × 2.5.
 */
const RESPONSE_QUOTA = (400 + 600 * 8 + 100 * 4 + 200 * 8 * 2) * 2.5;
/** What a client says and hears in a response that the gateway counts itself (it ends before its response.done). */
const ASK = 'Tell me a story about a lighthouse';
const REPLY = 'Once upon a time, a keeper watched the sea';
/** Two seconds of PCM16 in (2 × 250/9 audio tokens, new-api's input rate) and one out (125/9, its output rate). */
const AUDIO_IN_BYTES = 96_000;
const AUDIO_OUT_BYTES = 48_000;
const counter = new TokenCounter();
/** ASK, the audio in, REPLY and the audio out priced as new-api's audio quota, the text counted as new-api does (upstream model). */
const LOCAL_USAGE = {
  textIn: counter.countTextTokens(RT_UPSTREAM, ASK),
  audioIn: Math.floor(AUDIO_IN_BYTES / 1728),
  textOut: counter.countTextTokens(RT_UPSTREAM, REPLY),
  audioOut: Math.floor(AUDIO_OUT_BYTES / 3456),
};
const LOCAL_QUOTA = Math.round(
  (LOCAL_USAGE.textIn + LOCAL_USAGE.audioIn * 8 + LOCAL_USAGE.textOut * 4 + LOCAL_USAGE.audioOut * 8 * 2) * 2.5,
);
const HANDSHAKE = {
  connection: 'Upgrade',
  upgrade: 'websocket',
  'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
  'sec-websocket-version': '13',
};

interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body?: any;
}

describe.each(testDatabases())('the Realtime relay (GET /v1/realtime over WebSocket) on %s', (kind) => {
  let f: RelayFixture;
  let up: FakeRealtime;
  let token: { id: number; key: string };

  /** An upgrade request as a client sends it; the plain HTTP answer when the gateway refuses it. */
  const handshake = (path: string, headers: Record<string, string> = {}) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const req = request(`${f.gw.url}${path}`, { headers: { ...HANDSHAKE, ...headers } });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
      });
      req.on('upgrade', (res, socket) => {
        socket.destroy();
        resolve({ status: 101, headers: res.headers });
      });
      req.on('error', reject);
      req.end();
    });

  /** The official SDK's Realtime client (beta) against the gateway; its URL is always wss, so it gets plain TCP. */
  function sdkSession(key: string, model = RT) {
    const port = Number(new URL(f.gw.url).port);
    const client = new OpenAI({ apiKey: key, baseURL: `${f.gw.url}/v1`, maxRetries: 0 });
    const rt = new OpenAIRealtimeWS({ model, options: { createConnection: (() => connect(port, '127.0.0.1')) as never } }, client);
    const events: any[] = [];
    const errors: Error[] = [];
    rt.on('event', (event) => events.push(event));
    rt.on('error', (error) => errors.push(error));
    const requestId = new Promise<string>((resolve) =>
      rt.socket.once('upgrade', (res) => resolve(String(res.headers['x-oneapi-request-id']))),
    );
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      rt.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    const event = (type: string, nth = 1) =>
      waitFor(async () => events.filter((e) => e.type === type)[nth - 1], `the ${nth}. ${type} event`, 10_000);
    return { rt, events, errors, requestId, closed, event };
  }

  const balances = async () => ({ user: await f.quota(f.user.id), token: (await f.tokenRow(token.id)).remainQuota });
  const openReservations = async () =>
    Number((await f.ds.query(`SELECT COUNT(*) AS n FROM quota_reservations WHERE user_id = ${f.user.id} AND charged = -1`))[0].n);
  /** Waits until the session's money is final: nothing reserved, and the balances moved by exactly the logged charges. */
  async function settledSince(before: { user: number; token: number }, logsBefore: number): Promise<any[]> {
    await waitFor(async () => ((await openReservations()) === 0 ? true : undefined), 'no open reservation');
    // A charge is settled a moment before its log row is recorded: wait for the rows to account for the balances,
    // and only then compare (a balance that never matches fails below with both figures).
    const logged = async () => {
      const rows = (await f.logs({ userId: f.user.id, type: 2 })).slice(logsBefore);
      const charged = rows.reduce((sum, row) => sum + Number(row.quota), 0);
      return { rows, expected: { user: before.user - charged, token: before.token - charged } };
    };
    await waitFor(async () => {
      const { expected } = await logged();
      const now = await balances();
      return now.user === expected.user && now.token === expected.token ? true : undefined;
    }, 'the balances to match the logged charges').catch(() => undefined);
    const { rows, expected } = await logged();
    expect(await balances()).toEqual(expected);
    return rows;
  }
  const logCount = async () => (await f.logs({ userId: f.user.id, type: 2 })).length;
  /** The client's half of a counted response: its message, its audio, and the request for an answer. */
  function ask(s: ReturnType<typeof sdkSession>): void {
    s.rt.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: ASK }] } });
    s.rt.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(AUDIO_IN_BYTES).toString('base64') });
    s.rt.send({ type: 'response.create' });
  }
  /** A consume row billed at what the gateway counted of a response. */
  function expectLocallyCounted(row: any, requestId: string): void {
    expect(row).toMatchObject({
      requestId,
      quota: LOCAL_QUOTA,
      promptTokens: LOCAL_USAGE.textIn + LOCAL_USAGE.audioIn,
      completionTokens: LOCAL_USAGE.textOut + LOCAL_USAGE.audioOut,
    });
    expect(JSON.parse(row.other)).toMatchObject({
      ws: true,
      admin_info: { local_count_tokens: true },
      text_input: LOCAL_USAGE.textIn,
      audio_input: LOCAL_USAGE.audioIn,
      text_output: LOCAL_USAGE.textOut,
      audio_output: LOCAL_USAGE.audioOut,
      audio_ratio: 8,
      audio_completion_ratio: 2,
    });
  }

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    up = await startFakeRealtime();
    await f.setOption('ModelRatio', { ...RATIOS, [RT]: 2.5, [RT_DOWN]: 2.5, [RT_GUARDED]: 2.5 });
    await f.setOption('CompletionRatio', { ...COMPLETION_RATIOS, [RT]: 4 });
    await f.setOption('AudioRatio', { [RT]: 8 });
    await f.setOption('AudioCompletionRatio', { [RT]: 2 });
    await f.channel({ base_url: up.url, models: RT, model_mapping: JSON.stringify({ [RT]: RT_UPSTREAM }) });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await f.channel({ base_url: `http://127.0.0.1:${deadPort}`, models: RT_DOWN });
    token = await f.token({ remain_quota: 5_000_000 });
  });
  afterAll(async () => {
    await f?.close();
    await up?.close();
  });
  beforeEach(async () => {
    up.reset();
    await f.setQuota(f.user.id, 10_000_000);
  });

  it('relays a text response both ways with the official SDK and bills its response.done exactly', async () => {
    const before = await balances();
    const logsBefore = await logCount();
    const usedBefore = { user: await f.userRow(f.user.id), token: await f.tokenRow(token.id) };
    const s = sdkSession(token.key);
    const created = await s.event('session.created');
    expect(created.session.model).toBe(RT_UPSTREAM);
    s.rt.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] } });
    s.rt.send({ type: 'response.create', response: { modalities: ['text'] } });
    const done = await s.event('response.done');
    expect(done.response.usage).toEqual(REALTIME_USAGE);
    expect(s.events.map((e) => e.type)).toEqual([
      'session.created',
      'conversation.item.created',
      'response.created',
      'response.text.delta',
      'response.text.done',
      'response.done',
    ]);
    expect((await s.event('response.text.delta')).delta).toBe('Hello from the fake');
    s.rt.close();
    expect((await s.closed).code).toBe(1000);

    // The provider got the mapped model, the channel's key (never the client's), the beta header and the client's events.
    const [session] = up.connections;
    expect(session!.url).toBe(`/v1/realtime?model=${RT_UPSTREAM}`);
    expect(session!.headers.authorization).toMatch(/^Bearer sk-up-/);
    expect(session!.headers['openai-beta']).toBe('realtime=v1');
    expect(JSON.stringify(session!.headers)).not.toContain(token.key.replace(/^sk-/, ''));
    expect(session!.received).toEqual([
      { type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] } },
      { type: 'response.create', response: { modalities: ['text'] } },
    ]);
    await waitFor(async () => (session!.closed ? true : undefined), 'the provider socket closed');

    const [row] = await settledSince(before, logsBefore);
    const requestId = await s.requestId;
    expect(row).toMatchObject({
      requestId,
      modelName: RT,
      quota: RESPONSE_QUOTA,
      promptTokens: 1000,
      completionTokens: 300,
      tokenId: token.id,
    });
    expect(Boolean(row.isStream)).toBe(true);
    expect(JSON.parse(row.other)).toMatchObject({
      ws: true,
      text_input: 400,
      audio_input: 600,
      text_output: 100,
      audio_output: 200,
      audio_ratio: 8,
      audio_completion_ratio: 2,
      model_ratio: 2.5,
      completion_ratio: 4,
      upstream_model_name: RT_UPSTREAM,
      request_path: '/v1/realtime',
    });
    const user = await f.userRow(f.user.id);
    expect([user.usedQuota - usedBefore.user.usedQuota, user.requestCount - usedBefore.user.requestCount]).toEqual([RESPONSE_QUOTA, 1]);
    expect((await f.tokenRow(token.id)).usedQuota - usedBefore.token.usedQuota).toBe(RESPONSE_QUOTA);
  });

  it("bills each response by the model's billing expression (ai and ao priced apart), and refuses one that prices per request", async () => {
    await f.setOption('billing_setting.billing_mode', { [RT]: 'tiered_expr' });
    try {
      await f.setOption('billing_setting.billing_expr', { [RT]: 'tier("audio", p * 5 + c * 20 + ai * 40 + ao * 80)' });
      const before = await balances();
      const logsBefore = await logCount();
      const s = sdkSession(token.key);
      await s.event('session.created');
      s.rt.send({ type: 'response.create', response: { modalities: ['text'] } });
      await s.event('response.done');
      s.rt.close();
      await s.closed;
      // REALTIME_USAGE: p = 1000 − 600 audio in, c = 300 − 200 audio out; (400×5 + 100×20 + 600×40 + 200×80) = 44,000 US$/M.
      const [row] = await settledSince(before, logsBefore);
      expect(row).toMatchObject({ quota: 22_000, promptTokens: 1000, completionTokens: 300 });
      expect(JSON.parse(row.other)).toMatchObject({ billing_mode: 'tiered_expr', matched_tier: 'audio', billing_unit: 'token', ws: true });

      await f.setOption('billing_setting.billing_expr', { [RT]: 'tier("session", fixed(0.05))' });
      const refused = await handshake(`/v1/realtime?model=${RT}`, { authorization: `Bearer ${token.key}` });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'model_price_error', message: expect.stringContaining('uses fixed()') });
      expect(up.handshakes).toBe(1);
    } finally {
      await f.setOption('billing_setting.billing_mode', {});
      await f.setOption('billing_setting.billing_expr', {});
    }
  });

  it('takes the key from the openai-insecure-api-key subprotocol and answers with the realtime subprotocol', async () => {
    const before = await balances();
    const logsBefore = await logCount();
    const port = new URL(f.gw.url).port;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime?model=${RT}`, [
      'realtime',
      `openai-insecure-api-key.${token.key}`,
      'openai-beta.realtime-v1',
    ]);
    const first = await new Promise<any>((resolve, reject) => {
      ws.once('message', (data) => resolve(JSON.parse(data.toString())));
      ws.once('error', reject);
    });
    expect(first.type).toBe('session.created');
    expect(ws.protocol).toBe('realtime');
    const [session] = up.connections;
    expect(session!.headers['openai-beta']).toBe('realtime=v1');
    expect(session!.headers['sec-websocket-protocol']).toBeUndefined();
    expect(session!.headers.authorization).toMatch(/^Bearer sk-up-/);
    ws.close();
    await waitFor(async () => (session!.closed ? true : undefined), 'the provider socket closed');
    // No response: the session's reservation is given back and nothing is logged.
    expect(await settledSince(before, logsBefore)).toEqual([]);
  });

  it('refuses before the upgrade with plain HTTP errors in the OpenAI shape, and calls no provider', async () => {
    const path = `/v1/realtime?model=${RT}`;
    const badKey = await handshake(path, { authorization: 'Bearer sk-not-a-real-key' });
    expect(badKey.status).toBe(401);
    expect(badKey.body.error.message).toContain(`(request id: ${badKey.headers['x-oneapi-request-id']})`);
    expect(badKey.body.error).toHaveProperty('type');
    expect((await handshake(path)).status).toBe(401);
    expect((await handshake(path, { 'sec-websocket-protocol': 'realtime, openai-insecure-api-key.sk-wrong' })).status).toBe(401);

    const auth = { authorization: `Bearer ${token.key}` };
    const noModel = await handshake('/v1/realtime', auth);
    expect(noModel.status).toBe(400);
    expect(noModel.body.error.code).toBe('model_required');
    const noChannel = await handshake('/v1/realtime?model=relay-chat', auth);
    expect(noChannel.status).toBe(503);
    expect(noChannel.body.error.code).toBe('model_not_found');
    expect((await handshake('/v1/elsewhere', auth)).status).toBe(404);

    // Without an upgrade the route answers 400 once the key is checked; a bad key is still a 401.
    const plain = await fetch(`${f.gw.url}${path}`, { headers: auth });
    expect(plain.status).toBe(400);
    expect((await plain.json()).error.message).toContain('WebSocket');
    expect((await fetch(`${f.gw.url}${path}`)).status).toBe(401);

    // The SDK sees the refusal as a failed connection.
    const s = sdkSession('sk-not-a-real-key');
    await waitFor(async () => s.errors[0], 'the SDK error');
    expect(s.errors[0]!.message).toContain('401');
    expect(up.handshakes).toBe(0);
  });

  it('refuses a caller without quota before the upgrade (403), reserving and calling nothing', async () => {
    await f.setQuota(f.user.id, 0);
    const answer = await handshake(`/v1/realtime?model=${RT}`, { authorization: `Bearer ${token.key}` });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('insufficient_user_quota');
    expect(await f.quota(f.user.id)).toBe(0);
    expect(await openReservations()).toBe(0);
    expect(up.handshakes).toBe(0);
  });

  it('ends the session with an error event when quota runs out at a response.done, the response charged in full', async () => {
    await f.setQuota(f.user.id, RESERVE + 750);
    const before = await balances();
    const logsBefore = await logCount();
    const s = sdkSession(token.key);
    await s.event('session.created');
    s.rt.send({ type: 'response.create' });
    await s.event('response.done');
    const error = await s.event('error');
    expect(error.error.code).toBe('insufficient_user_quota');
    expect(error.error.message).toContain(`(request id: ${await s.requestId})`);
    expect((await s.closed).code).toBe(1008);
    await waitFor(async () => (up.connections[0]?.closed ? true : undefined), 'the provider socket closed');
    const [row] = await settledSince(before, logsBefore);
    expect(row.quota).toBe(RESPONSE_QUOTA);
    expect(row.content).toContain(`balance short by ${RESPONSE_QUOTA - before.user}`);
    expect(await f.quota(f.user.id)).toBe(before.user - RESPONSE_QUOTA);
  });

  it('answers a provider that is down or refuses the upgrade before switching, and gives the reservation back', async () => {
    const before = await balances();
    const logsBefore = await logCount();
    const down = await handshake(`/v1/realtime?model=${RT_DOWN}`, { authorization: `Bearer ${token.key}` });
    expect(down.status).toBe(502);
    expect(down.body.error.code).toBe('do_request_failed');

    up.script({
      refuse: { status: 429, body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } } },
    });
    const refused = await handshake(`/v1/realtime?model=${RT}`, { authorization: `Bearer ${token.key}` });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
    expect(refused.body.error.message).toContain('Rate limit reached');
    expect(await settledSince(before, logsBefore)).toEqual([]);
  });

  it("opens the provider's socket under the public-only rule of a channel base URL checked public when saved", async () => {
    let phase: 'public' | 'loopback' = 'public';
    const restoreResolver = scriptResolver((host) =>
      host.endsWith('.rebind.test') ? [{ address: phase === 'public' ? '93.184.216.34' : '127.0.0.1', family: 4 }] : undefined,
    );
    try {
      expect((await f.root.post('/api/user/', { username: 'rtadmin', password: 'rt-admin-pass-1' })).body.success).toBe(true);
      const admin = f.gw.client();
      const login = await admin.login('rtadmin', 'rt-admin-pass-1');
      expect((await f.root.post('/api/user/manage', { id: login.body.data.id, action: 'promote' })).body.success).toBe(true);
      const saved = await admin.post('/api/channel/', {
        mode: 'single',
        channel: {
          type: 1,
          name: 'rt-rebind',
          key: 'sk-rt-rebind-channel-key-0123456789',
          models: RT_GUARDED,
          group: 'default',
          base_url: `http://rt.rebind.test:${new URL(up.url).port}`,
        },
      });
      expect(saved.body.success, saved.text).toBe(true);
      phase = 'loopback';
      const before = await balances();
      const logsBefore = await logCount();
      const refused = await handshake(`/v1/realtime?model=${RT_GUARDED}`, { authorization: `Bearer ${token.key}` });
      expect(refused.status).toBe(502);
      expect(refused.body.error.code).toBe('do_request_failed');
      expect(refused.body.error.message).toContain('not public');
      expect(up.handshakes).toBe(0);
      expect(await settledSince(before, logsBefore)).toEqual([]);
    } finally {
      restoreResolver();
    }
  });

  it('closes the client cleanly when the provider drops the connection, and bills nothing unfinished', async () => {
    const before = await balances();
    const logsBefore = await logCount();
    up.script({ dropAfterSession: true });
    const s = sdkSession(token.key);
    await s.event('session.created');
    expect((await s.closed).code).toBe(1011);
    expect(await settledSince(before, logsBefore)).toEqual([]);
    expect((await fetch(`${f.gw.url}/api/status`)).status).toBe(200);
  });

  it('bills a response the client disconnects in at what the gateway counted of it, the finished one at its usage', async () => {
    const before = await balances();
    const logsBefore = await logCount();
    const s = sdkSession(token.key);
    await s.event('session.created');
    s.rt.send({ type: 'response.create' });
    await s.event('response.done');
    up.script({ hold: true, reply: REPLY, audioBytes: AUDIO_OUT_BYTES });
    ask(s);
    expect((await s.event('response.text.delta', 2)).delta).toBe(REPLY);
    await s.event('response.audio.delta');
    s.rt.socket.terminate();
    await waitFor(async () => (up.connections[0]?.closed ? true : undefined), 'the provider socket closed');
    const rows = await settledSince(before, logsBefore);
    const requestId = await s.requestId;
    expect(rows.map((row) => [row.requestId, row.quota])).toEqual([
      [requestId, RESPONSE_QUOTA],
      [`${requestId}-2`, LOCAL_QUOTA],
    ]);
    expect(JSON.parse(rows[0].other).admin_info).not.toHaveProperty('local_count_tokens');
    expectLocallyCounted(rows[1], `${requestId}-2`);
    expect((await fetch(`${f.gw.url}/api/status`)).status).toBe(200);
  });

  it('bills a response the provider drops in at what the gateway counted of it', async () => {
    const before = await balances();
    const logsBefore = await logCount();
    up.script({ dropMidResponse: true, reply: REPLY, audioBytes: AUDIO_OUT_BYTES });
    const s = sdkSession(token.key);
    await s.event('session.created');
    ask(s);
    await s.event('response.audio.delta');
    expect((await s.closed).code).toBe(1011);
    const rows = await settledSince(before, logsBefore);
    expect(rows).toHaveLength(1);
    expectLocallyCounted(rows[0], await s.requestId);
  });

  it("bills a finished response at the provider's usage only, whatever the gateway counted of it", async () => {
    const before = await balances();
    const logsBefore = await logCount();
    up.script({ reply: REPLY, audioBytes: AUDIO_OUT_BYTES });
    const s = sdkSession(token.key);
    await s.event('session.created');
    ask(s);
    await s.event('response.done');
    s.rt.close();
    expect((await s.closed).code).toBe(1000);
    await waitFor(async () => (up.connections[0]?.closed ? true : undefined), 'the provider socket closed');
    const rows = await settledSince(before, logsBefore);
    expect(rows.map((row) => [row.quota, row.promptTokens, row.completionTokens])).toEqual([[RESPONSE_QUOTA, 1000, 300]]);
    expect(JSON.parse(rows[0].other).admin_info).not.toHaveProperty('local_count_tokens');
  });

  it('passes malformed frames to the provider as they are, and closes a session whose frame is too large', async () => {
    const before = await balances();
    const logsBefore = await logCount();
    const s = sdkSession(token.key);
    await s.event('session.created');
    s.rt.socket.send('this is not JSON');
    const refusal = await s.event('error');
    expect(refusal.error.code).toBe('invalid_json');
    s.rt.send({ type: 'response.create' });
    await s.event('response.done');
    expect(up.connections[0]!.received).toEqual(['this is not JSON', { type: 'response.create' }]);
    s.rt.socket.send(Buffer.alloc(9 * 1024 * 1024, 'a').toString());
    expect((await s.closed).code).toBe(1009);
    await waitFor(async () => (up.connections[0]?.closed ? true : undefined), 'the provider socket closed');
    expect((await settledSince(before, logsBefore)).map((row) => row.quota)).toEqual([RESPONSE_QUOTA]);
  });
});
