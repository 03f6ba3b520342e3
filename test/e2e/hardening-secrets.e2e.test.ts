import Anthropic from '@anthropic-ai/sdk';
import { APIError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { leakedWindow } from '../support/canary.js';
import { testDatabases } from '../support/databases.js';
import { relayMessage } from '../support/relay-error.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';

/** Channel keys long enough to be recognised in pieces (OpenAI quotes `sk-proj-abc1…wxyz`). */
const OPENAI_KEYS = ['sk-proj-FIRSTkey0123456789abcdefABCDEF', 'sk-proj-SECONDkey9876543210zyxwvuZYXWVU'];
const CLAUDE_KEY = 'sk-ant-api03-CLAUDEsecret-112233445566778899';
const GEMINI_KEY = 'AIzaSyGEMINIsecret-aabbccddeeff00112233';
const ALL_KEYS = [...OPENAI_KEYS, CLAUDE_KEY, GEMINI_KEY];
const WEBHOOK_SECRET = 'whsec-CANARYwebhook-5566778899aabbcc';
const CHAT = 'sec-chat';
const CLAUDE = 'sec-claude';
const GEMINI = 'sec-gemini';

/** Every 8-character run of every key: none may appear in what a client or the log receives. */
function expectNoKeyIn(text: string): void {
  for (const key of ALL_KEYS)
    for (let i = 0; i + 8 <= key.length; i++) expect(text, `leaks ${key.slice(i, i + 8)}`).not.toContain(key.slice(i, i + 8));
}

/** What a proxy or provider that echoes the rejected key sends back: one key whole, the other masked. */
const echo = (whole: string, masked: string) =>
  `Incorrect API key provided: ${whole}. Also tried ${masked.slice(0, 12)}****${masked.slice(-4)}.`;

describe.each(testDatabases())('hardening: no channel key in an upstream error, no webhook secret in an answer, on %s', (kind) => {
  let f: RelayFixture;
  let token: string;

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.setOption('ModelRatio', { [CHAT]: 1, [CLAUDE]: 1, [GEMINI]: 1 });
    const multi = await f.root.post('/api/channel/', {
      mode: 'multi_to_single',
      multi_key_mode: 'polling',
      channel: { type: 1, name: 'sec-multi', key: OPENAI_KEYS.join('\n'), models: CHAT, group: 'default', base_url: f.up.url },
    });
    expect(multi.body.success, multi.text).toBe(true);
    await f.channel({ type: 14, models: CLAUDE, key: CLAUDE_KEY });
    await f.channel({ type: 24, models: GEMINI, key: GEMINI_KEY });
    token = (await f.token({ unlimited_quota: true })).key;
  });
  afterAll(() => f?.close());
  beforeEach(() => f.up.reset());

  it("reports an upstream 401 as the gateway's channel problem (500), without the keys, to the openai client", async () => {
    f.up.script({ path: '/v1/chat/completions', status: 401, errorMessage: echo(OPENAI_KEYS[0]!, OPENAI_KEYS[1]!) });
    const error = await f
      .openai(token)
      .chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    const api = error as APIError;
    expect(api.status).toBe(500);
    expect(api.code).toBe('channel:invalid_key');
    expect(api.message).toContain('upstream status 401');
    expect(api.message).toContain('Incorrect API key provided: ***');
    expectNoKeyIn(JSON.stringify(api.error));
  });

  it('redacts the keys from a streaming request refused upstream (403 as well)', async () => {
    f.up.script({ path: '/v1/chat/completions', status: 403, errorMessage: echo(OPENAI_KEYS[1]!, OPENAI_KEYS[0]!) });
    const error = await (async () => {
      const stream = await f
        .openai(token)
        .chat.completions.create({ model: CHAT, stream: true, messages: [{ role: 'user', content: 'hi' }] });
      for await (const _ of stream) {
        // drained only to surface an error
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(500);
    expectNoKeyIn(JSON.stringify((error as APIError).error));
  });

  it('redacts other upstream statuses too, keeping their status (429)', async () => {
    f.up.script({ path: '/v1/chat/completions', status: 429, errorMessage: `rate limited for ${OPENAI_KEYS[0]}` });
    const res = await fetch(`${f.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(429);
    const text = await res.text();
    expect(relayMessage({ headers: res.headers, body: JSON.parse(text) })).toBe('rate limited for ***');
    expectNoKeyIn(text);
  });

  it('redacts on /v1/messages (Anthropic inbound) and on an OpenAI call converted to a Claude channel', async () => {
    f.up.script({ path: '/v1/messages', status: 401, errorMessage: `invalid x-api-key ${CLAUDE_KEY}` });
    const anthropic = new Anthropic({ apiKey: token, baseURL: f.gw.url, maxRetries: 0 });
    const error = await anthropic.messages
      .create({ model: CLAUDE, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(500);
    expectNoKeyIn(JSON.stringify((error as InstanceType<typeof Anthropic.APIError>).error));

    const converted = await f
      .openai(token)
      .chat.completions.create({ model: CLAUDE, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect((converted as APIError).status).toBe(500);
    expectNoKeyIn(JSON.stringify((converted as APIError).error));
  });

  it('redacts on Gemini generateContent, stream and not', async () => {
    f.up.script({ path: `/v1beta/models/${GEMINI}`, status: 400, errorMessage: `API key not valid: ${GEMINI_KEY}` });
    for (const action of ['generateContent', 'streamGenerateContent?alt=sse']) {
      const res = await fetch(`${f.gw.url}/v1beta/models/${GEMINI}:${action}`, {
        method: 'POST',
        headers: { 'x-goog-api-key': token, 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
      });
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(text).toContain('API key not valid: ***');
      expectNoKeyIn(text);
    }
  });

  it('redacts the keys from an error event inside a 200 stream', async () => {
    const event = {
      error: { message: `Incorrect API key provided: ${OPENAI_KEYS[0]}`, type: 'invalid_request_error', code: 'invalid_api_key' },
    };
    f.up.script({
      path: '/v1/chat/completions',
      raw: { contentType: 'text/event-stream', body: `data: ${JSON.stringify(event)}\n\ndata: [DONE]\n\n` },
    });
    const res = await fetch(`${f.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await res.text();
    expect(text).toContain('Incorrect API key provided: ***');
    expectNoKeyIn(text);
  });
  it('redacts a key echoed in ordinary streamed content, split across upstream chunks, and in a non-stream answer', async () => {
    const key = OPENAI_KEYS[1]!;
    const delta = (content: string) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;
    const event = delta(`your key is ${key} ok`);
    const cut = event.indexOf(key) + 5;
    f.up.script({
      path: '/v1/chat/completions',
      times: 1,
      raw: { contentType: 'text/event-stream', body: [delta('hello '), event.slice(0, cut), event.slice(cut), 'data: [DONE]\n\n'] },
    });
    const streamed = await fetch(`${f.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(streamed.status).toBe(200);
    const text = await streamed.text();
    expect(text).toContain('hello ');
    expect(text).toContain('your key is *** ok');
    expectNoKeyIn(text);

    const answer = {
      id: 'c2',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: `echo ${OPENAI_KEYS[0]}` } }],
    };
    f.up.script({ path: '/v1/chat/completions', times: 1, raw: { contentType: 'application/json', body: JSON.stringify(answer) } });
    const whole = await fetch(`${f.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(whole.status).toBe(200);
    const body = await whole.text();
    expect(JSON.parse(body).choices[0].message.content).toBe('echo ***');
    expectNoKeyIn(body);
  });

  it('masks a key in binary speech audio, split across upstream chunks, and leaves the other bytes as they were', async () => {
    const key = OPENAI_KEYS[0]!;
    const audio = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x00]), Buffer.from(`ID3 ${key} tag`), Buffer.alloc(64, 0xaa)]);
    const cut = 4 + 4 + 10;
    f.up.script({
      path: '/v1/audio/speech',
      times: 1,
      raw: { contentType: 'audio/mpeg', body: [audio.subarray(0, cut), audio.subarray(cut)] },
    });
    const res = await fetch(`${f.gw.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT, input: 'hello', voice: 'alloy' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes).toEqual(Buffer.concat([audio.subarray(0, 8), Buffer.from('*** tag'), Buffer.alloc(64, 0xaa)]));
    expectNoKeyIn(bytes.toString('latin1'));
  });

  it("never answers a user's webhook secret, not even to its owner; saving the form without one keeps it", async () => {
    const me = f.user.client;
    const savedSecret = async () =>
      String(((await f.ds.query(`SELECT setting FROM users WHERE id = ${f.user.id}`)) as { setting: string }[])[0]!.setting);
    const self = async () => {
      const res = await me.get('/api/user/self');
      expect(res.body.success, res.text).toBe(true);
      expect(leakedWindow(res.text, WEBHOOK_SECRET), 'a piece of the webhook secret in GET /api/user/self').toBeUndefined();
      return JSON.parse(res.body.data.setting) as Record<string, unknown>;
    };
    const webhook = { notify_type: 'webhook', webhook_url: 'https://8.8.8.8/hook' };
    expect((await me.put('/api/user/setting', { ...webhook, webhook_secret: WEBHOOK_SECRET })).body.success).toBe(true);
    expect(await self()).toMatchObject({ ...webhook, has_webhook_secret: true });
    expect(await self()).not.toHaveProperty('webhook_secret');

    // The settings page sends the form back with the secret field empty: the saved one stays in use.
    expect((await me.put('/api/user/setting', { ...webhook, webhook_secret: '', quota_warning_threshold: 5000 })).body.success).toBe(true);
    expect(await self()).toMatchObject({ has_webhook_secret: true, quota_warning_threshold: 5000 });
    expect(await savedSecret()).toContain(WEBHOOK_SECRET);

    expect((await me.put('/api/user/setting', { ...webhook, clear_webhook_secret: true })).body.success).toBe(true);
    expect(await self()).toMatchObject({ has_webhook_secret: false });
    expect(await savedSecret()).not.toContain(WEBHOOK_SECRET);
  });
});
