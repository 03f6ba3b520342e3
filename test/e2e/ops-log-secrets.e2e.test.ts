import { Writable } from 'node:stream';
import OpenAI from 'openai';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import { ApiClient } from '../support/api-client.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

const MODEL = 'canary-model';
/** Secrets that must never appear in a log line (threats K3): at most four characters of any of them. */
const CANARY = {
  rootPassword: 'CanaryRoot7Q2W9E',
  wrongPassword: 'CanaryWrong3X8C1V',
  channelKey: 'sk-canarychannel4Hd8Kq2Lm9Zp7Rt',
  smtpPassword: 'canary-smtp-secret-U7I8O9',
  githubSecret: 'canary-github-secret-K4J5H6',
  epayKey: 'canary-epay-key-N1B2V3',
  userPassword: 'CanaryUser5T6Y7U',
};

/** True when some 8-character window of the secret's distinctive part occurs in the text. */
function leaks(text: string, secret: string): string | undefined {
  const distinctive = secret.replace(/^sk-/, '');
  for (let i = 0; i + 8 <= distinctive.length; i++) {
    const window = distinctive.slice(i, i + 8);
    if (text.includes(window)) return window;
  }
  return undefined;
}

describe('log lines never carry a secret (canary scan at LOG_LEVEL=debug)', () => {
  let gw: TestGateway;
  let up: FakeUpstream;
  const lines: string[] = [];
  const secrets = new Map<string, string>(Object.entries(CANARY));
  let dbLogText = '';

  beforeAll(async () => {
    up = await startFakeUpstream();
    const capture = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    gw = await startTestGateway('sqlite', { LOG_LEVEL: 'debug', ERROR_LOG_ENABLED: 'true' }, undefined, { logDestination: capture });

    // Setup and logins, with a good and a wrong password.
    const anon = gw.client();
    expect(
      (await anon.post('/api/setup', { username: 'root', password: CANARY.rootPassword, confirmPassword: CANARY.rootPassword })).body
        .success,
    ).toBe(true);
    expect((await gw.client().login('root', CANARY.wrongPassword)).body.success).toBe(false);
    const root = gw.client();
    expect((await root.login('root', CANARY.rootPassword)).body.success).toBe(true);
    secrets.set('rootSession', root.cookie!.replace(/^session=/, ''));

    // Secret options.
    for (const [key, value] of [
      ['SMTPToken', CANARY.smtpPassword],
      ['GitHubClientSecret', CANARY.githubSecret],
      ['EpayKey', CANARY.epayKey],
      ['ModelRatio', JSON.stringify({ [MODEL]: 1 })],
    ]) {
      const saved = await root.put('/api/option/', { key, value });
      expect(saved.body.success, saved.text).toBe(true);
    }
    const channel = await root.post('/api/channel/', {
      mode: 'single',
      channel: { type: 1, name: 'canary', key: CANARY.channelKey, models: MODEL, group: 'default', base_url: up.url },
    });
    expect(channel.body.success, channel.text).toBe(true);

    // A user with a token, a redemption code and a session of its own.
    expect((await root.post('/api/user/', { username: 'canary', password: CANARY.userPassword })).body.success).toBe(true);
    const user = gw.client();
    expect((await user.login('canary', CANARY.userPassword)).body.success).toBe(true);
    secrets.set('userSession', user.cookie!.replace(/^session=/, ''));
    const codes = await root.post('/api/redemption/', { name: 'canary', quota: 100000, count: 1 });
    const code = codes.body.data[0] as string;
    secrets.set('redemptionCode', code);
    expect((await user.post('/api/user/topup', { key: code })).body.success).toBe(true);
    expect(
      (await user.post('/api/token/', { name: 'canary', remain_quota: 0, unlimited_quota: true, expired_time: -1 })).body.success,
    ).toBe(true);
    const tokenId = (await user.get('/api/token/search?keyword=canary')).body.data.items[0].id;
    const key = (await user.post(`/api/token/${tokenId}/key`)).body.data.key as string;
    secrets.set('userToken', key);
    const access = await user.get('/api/user/token');
    if (access.body.success) secrets.set('accessToken', access.body.data);

    // Relay: plain, streamed, a key that differs by one character, the ?key= carrier, an upstream error that echoes the channel key.
    const openai = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    for await (const _chunk of await openai.chat.completions.create({
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    }))
      void _chunk;
    const wrongKey = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
    secrets.set('wrongKey', wrongKey);
    const wrong = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${wrongKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(wrong.status).toBe(401);
    expect(leaks(await wrong.text(), wrongKey)).toBeUndefined();
    expect((await fetch(`${gw.url}/v1/models?key=${key}`)).status).toBe(200);
    up.script({ path: '/v1/chat/completions', status: 401, errorMessage: `Incorrect API key provided: ${CANARY.channelKey}`, times: 1 });
    await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'fail' }] }).catch(() => undefined);
    // Console calls authenticated by the access token (Authorization header).
    if (access.body.success)
      await new ApiClient(gw.url).get('/api/user/self', { authorization: access.body.data, 'New-Api-User': String(user.userId) });

    const ds = gw.gateway.app.get(DataSource);
    const rows = (await ds.query('SELECT content, other FROM logs')) as { content: string; other: string }[];
    dbLogText = rows.map((r) => `${r.content} ${r.other}`).join('\n');
    await gw.close();
  }, 120_000);

  afterAll(() => up?.close());

  it('wrote structured JSON lines with levels, contexts and request ids', () => {
    expect(lines.length).toBeGreaterThan(10);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.every((p) => typeof p.level === 'string' && typeof p.time === 'string' && typeof p.msg === 'string')).toBe(true);
    const access = parsed.filter((p) => p.msg === 'request completed');
    expect(access.length).toBeGreaterThan(5);
    expect(access.every((p) => typeof p.req_id === 'string' && (p.req_id as string).length >= 20)).toBe(true);
    const relay = parsed.filter((p) => p.msg === 'relay completed');
    expect(relay.length).toBeGreaterThanOrEqual(3);
    expect(relay.some((p) => p.status === 401)).toBe(true);
    expect(relay.every((p) => typeof p.req_id === 'string')).toBe(true);
  });

  it('finds no canary secret in any log line or log row', () => {
    const text = lines.join('\n');
    expect(secrets.size).toBeGreaterThanOrEqual(10);
    for (const [name, secret] of secrets) {
      expect(leaks(text, secret), `${name} leaked into the log output`).toBeUndefined();
      expect(leaks(dbLogText, secret), `${name} leaked into the logs table`).toBeUndefined();
    }
  });
});
