import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_REPLY } from '../fake-upstream/index.js';
import { testDatabases } from '../support/databases.js';
import { CHAT, ratioQuota, startRelayFixture, waitFor, type RelayFixture } from './relay-fixture.js';

const PRICED = 'relay-priced';
/** ModelPrice 0.001 × QuotaPerUnit 500000 = 500 quota per call, reserved and charged alike. */
const PRICE_QUOTA = 500;

describe.each(testDatabases())('relay: metering, aborts and concurrent billing on %s', (kind) => {
  let f: RelayFixture;
  let token: { id: number; key: string };

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.setOption('ModelPrice', { [PRICED]: 0.001 });
    await f.channel({ models: [CHAT, PRICED].join(',') });
    token = await f.token({ unlimited_quota: true });
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  it('bills an aborted stream for what was delivered and aborts the upstream request', async () => {
    f.up.script({ chunkDelayMs: 150, reply: 'one two three four five six seven eight nine ten' });
    const before = await f.quota(f.user.id);
    const stream = await f
      .openai(token.key)
      .chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'count' }], stream: true });
    const received: string[] = [];
    for await (const chunk of stream) {
      received.push(chunk.choices[0]?.delta?.content ?? '');
      break;
    }
    await waitFor(async () => (f.up.requests[0]?.aborted ? true : undefined), 'the upstream abort');
    const [log] = await waitFor(async () => {
      const rows = await f.logs({ userId: f.user.id, modelName: CHAT });
      return rows.length ? rows : undefined;
    }, 'the consume log');
    expect(log.completionTokens).toBeGreaterThan(0);
    expect(log.completionTokens).toBeLessThan(10);
    expect(log.quota).toBe(ratioQuota(CHAT, log.promptTokens, log.completionTokens));
    expect(JSON.parse(log.other).stream_status).toMatchObject({ status: 'error' });
    expect(await f.quota(f.user.id)).toBe(before - log.quota);
    expect(received[0]).toBe('one ');
  });

  it('refunds everything when the client gives up before the first byte, and aborts the upstream call', async () => {
    f.up.script({ delayMs: 3000 });
    const before = await f.quota(f.user.id);
    const logsBefore = (await f.logs({ userId: f.user.id })).length;
    const controller = new AbortController();
    const pending = fetch(`${f.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] }),
      signal: controller.signal,
    }).catch((error: Error) => error);
    await waitFor(async () => (f.up.requests.length ? true : undefined), 'the upstream call');
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    await waitFor(async () => (f.up.requests[0]!.aborted ? true : undefined), 'the upstream abort');
    await waitFor(async () => ((await f.quota(f.user.id)) === before ? true : undefined), 'the refund');
    expect((await f.logs({ userId: f.user.id })).length).toBe(logsBefore);
  });

  it('bills what was delivered when the upstream cuts the stream', async () => {
    f.up.script({ resetAfterChunks: 2, reply: 'alpha beta gamma delta' });
    const before = await f.quota(f.user.id);
    const res = await fetch(`${f.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT, messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('alpha');
    expect(text).not.toContain('gamma');
    const log = await f.settled(res.headers.get('x-oneapi-request-id'));
    expect(log.completionTokens).toBeGreaterThan(0);
    expect(log.quota).toBe(ratioQuota(CHAT, log.promptTokens, log.completionTokens));
    expect(await f.quota(f.user.id)).toBe(before - log.quota);
  });

  it('counts tokens locally when upstream sends no usage, and writes usage into the answer', async () => {
    f.up.script({ omitUsage: true, reply: 'hello world' });
    const { data, response } = await f
      .openai(token.key)
      .chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(data.usage!.completion_tokens).toBe(2);
    expect(data.usage!.prompt_tokens).toBeGreaterThan(0);
    const log = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(log).toMatchObject({
      promptTokens: data.usage!.prompt_tokens,
      completionTokens: 2,
      quota: ratioQuota(CHAT, data.usage!.prompt_tokens, 2),
    });
    expect(JSON.parse(log.other).admin_info.local_count_tokens).toBe(true);
  });

  it('adds a synthetic usage chunk before [DONE] when the client asked and upstream sent none', async () => {
    f.up.script({ omitUsage: true });
    const { data: stream, response } = await f
      .openai(token.key)
      .chat.completions.create({
        model: CHAT,
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    let text = '';
    const usages: { prompt_tokens: number; completion_tokens: number }[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usages.push(chunk.usage);
    }
    expect(text).toBe(DEFAULT_REPLY);
    expect(usages).toHaveLength(1);
    expect(usages[0]!.completion_tokens).toBeGreaterThan(0);
    const log = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(log).toMatchObject({ promptTokens: usages[0]!.prompt_tokens, completionTokens: usages[0]!.completion_tokens, isStream: true });
  });

  it('serves the playground with the session, billed to the user without a token', async () => {
    const before = await f.quota(f.user.id);
    const res = await f.user.client.post('/pg/chat/completions', {
      model: CHAT,
      group: 'default',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('x-oneapi-request-id')).toBeTruthy();
    expect(f.up.requests[0]!.body.group).toBeUndefined();
    const log = await f.settled(res.headers.get('x-oneapi-request-id'));
    expect(await f.quota(f.user.id)).toBe(before - ratioQuota(CHAT));
    expect(log).toMatchObject({ tokenId: 0, tokenName: 'playground', quota: ratioQuota(CHAT), group: 'default' });
    expect((await f.user.client.post('/pg/chat/completions', { model: CHAT, group: 'svip', messages: [] })).status).toBe(403);
    expect((await f.gw.client().post('/pg/chat/completions', { model: CHAT, messages: [] })).status).toBe(401);
  });

  it('charges a settle the balance cannot cover in full: the balance goes into debt, the log says so, and the debt refuses the next request', async () => {
    // Reserve: max(prompt, 500) × ratio 2 = 1000; the real usage costs (1000 + 1000 × 3) × 2 = 8000.
    f.up.script({ usage: { prompt_tokens: 1000, completion_tokens: 1000 } });
    await f.setQuota(f.user.id, 1000);
    const send = () =>
      f.gw
        .client()
        .post(
          '/v1/chat/completions',
          { model: CHAT, messages: [{ role: 'user', content: 'hi' }] },
          { Authorization: `Bearer ${token.key}` },
        );
    const res = await send();
    expect(res.status, res.text).toBe(200);
    const log = await f.settled(res.headers.get('x-oneapi-request-id'));
    expect(log.quota).toBe(8000);
    expect(log.content).toContain('balance short by 7000');
    expect(await f.quota(f.user.id)).toBe(-7000);
    const refused = await send();
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_user_quota');
    await f.setQuota(f.user.id, 10_000_000);
  });

  it('answers 429 once the per-user model request limit is reached', async () => {
    await f.setOption('ModelRequestRateLimitEnabled', 'true');
    await f.setOption('ModelRequestRateLimitCount', '2');
    try {
      const send = () =>
        f.gw
          .client()
          .post(
            '/v1/chat/completions',
            { model: CHAT, messages: [{ role: 'user', content: 'hi' }] },
            { Authorization: `Bearer ${token.key}` },
          );
      const passed = [await send(), await send()];
      const limited = await send();
      expect(passed.map((r) => r.status)).toEqual([200, 200]);
      for (const r of passed) await f.settled(r.headers.get('x-oneapi-request-id'));
      expect(limited.status).toBe(429);
      expect(limited.body.error.message).toContain('at most 2 requests');
      expect(limited.headers.get('x-oneapi-request-id')).toBeTruthy();
    } finally {
      await f.setOption('ModelRequestRateLimitEnabled', 'false');
    }
  });

  it('200 concurrent priced requests: exactly k succeed, the balance never goes below zero and matches the logs', async () => {
    const k = 7;
    await f.setQuota(f.user.id, k * PRICE_QUOTA);
    const request = () =>
      fetch(`${f.gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: PRICED, messages: [{ role: 'user', content: 'hi' }] }),
      }).then(async (res) => ({ status: res.status, id: res.headers.get('x-oneapi-request-id')!, body: await res.text() }));
    const results = await Promise.all(Array.from({ length: 200 }, request));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(k);
    expect(results.filter((r) => r.status !== 200).every((r) => r.status === 403 && r.body.includes('insufficient_user_quota'))).toBe(true);
    const logs = await f.logCount({ userId: f.user.id, modelName: PRICED }, k);
    expect(logs).toHaveLength(k);
    expect(logs.reduce((sum, l) => sum + l.quota, 0)).toBe(k * PRICE_QUOTA);
    expect(await f.quota(f.user.id)).toBe(0);
  });

  it('200 concurrent ratio requests on a limited token: balances stay ≥ 0 and equal initial − Σ logged charges', async () => {
    const limited = await f.token({ remain_quota: 5000 });
    await f.setQuota(f.user.id, 4000);
    const userBefore = await f.userRow(f.user.id);
    const logsBefore = (await f.logs({ userId: f.user.id })).length;
    const results = await Promise.all(
      Array.from({ length: 200 }, () =>
        f.gw
          .client()
          .post(
            '/v1/chat/completions',
            { model: CHAT, messages: [{ role: 'user', content: 'hi' }] },
            { Authorization: `Bearer ${limited.key}` },
          ),
      ),
    );
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThan(0);
    expect(ok).toBeLessThanOrEqual(Math.floor(4000 / ratioQuota(CHAT)));
    const logs = (await f.logCount({ userId: f.user.id }, logsBefore + ok)).slice(logsBefore);
    expect(logs).toHaveLength(ok);
    const charged = logs.reduce((sum, l) => sum + l.quota, 0);
    const after = await f.userRow(f.user.id);
    expect(after.quota).toBeGreaterThanOrEqual(0);
    expect(after.quota).toBe(4000 - charged);
    expect(after.usedQuota).toBe(userBefore.usedQuota + charged);
    expect(after.requestCount).toBe(userBefore.requestCount + ok);
    const tokenAfter = await f.tokenRow(limited.id);
    expect(tokenAfter.remainQuota).toBe(5000 - charged);
    expect(tokenAfter.usedQuota).toBe(charged);
  });

  it("bills at GroupGroupRatio's ratio for the user's group in the using group (new-api's group-to-group ratio)", async () => {
    await f.setOption('GroupGroupRatio', { default: { default: 0.5 } });
    try {
      await f.setQuota(f.user.id, 1_000_000);
      const before = await f.quota(f.user.id);
      const { response } = await f
        .openai(token.key)
        .chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      const log = await f.settled(response.headers.get('x-oneapi-request-id'));
      expect(log.quota).toBe(ratioQuota(CHAT, 10, 20, 0.5));
      // new-api logs the override as user_group_ratio (GroupSpecialRatio), and group_ratio is the ratio billed.
      expect(JSON.parse(log.other)).toMatchObject({ group_ratio: 0.5, user_group_ratio: 0.5 });
      expect(await f.quota(f.user.id)).toBe(before - ratioQuota(CHAT, 10, 20, 0.5));
    } finally {
      await f.setOption('GroupGroupRatio', {});
    }
  });
});
