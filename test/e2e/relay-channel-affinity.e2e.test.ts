import { createHash } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTION_REGISTRY } from '@gw/option';
import { testDatabases } from '../support/databases.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { CHAT, RATIOS, type RelayFixture, startRelayFixture } from './relay-fixture.js';

const GPT = 'gpt-affinity';
const CLAUDE = 'claude-affinity';
const fp = (value: string) => createHash('sha1').update(value).digest('hex').slice(0, 8);

type ApiError = InstanceType<typeof OpenAI.APIError>;

/**
 * new-api's channel affinity (channel_affinity_setting): a conversation's key (Codex's prompt_cache_key, Claude
 * Code's session id, or what a custom rule names) brings it back to the channel that served it last, for the
 * provider's prompt cache. Two channels serve the same models; which one answered is read from the key the fake
 * provider received.
 */
describe.each(testDatabases())('channel affinity on %s', (kind) => {
  let f: RelayFixture;
  let openai: OpenAI;
  let key: string;
  const channelKeys = new Map<string, number>();
  let a: number;
  let b: number;

  /** The channel of the last provider call. */
  const lastChannel = () => channelKeys.get(String(f.up.requests.at(-1)!.headers.authorization).replace(/^Bearer\s+/i, ''))!;
  const respond = async (cacheKey: string) => {
    const { data, response } = await openai.responses.create({ model: GPT, input: 'hi', prompt_cache_key: cacheKey }).withResponse();
    expect(data.status).toBe('completed');
    return { channel: lastChannel(), requestId: response.headers.get('x-oneapi-request-id') };
  };
  const logOf = async (requestId: string | null) => JSON.parse((await f.settled(requestId)).other as string);
  const stats = async () => (await f.root.get('/api/option/channel_affinity_cache')).body;

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.setOption('ModelRatio', { ...RATIOS, [GPT]: 1, [CLAUDE]: 1 });
    const models = [GPT, CLAUDE, CHAT].join(',');
    a = await f.channel({ key: 'sk-affinity-a', models });
    b = await f.channel({ key: 'sk-affinity-b', models });
    channelKeys.set('sk-affinity-a', a).set('sk-affinity-b', b);
    key = (await f.token({ unlimited_quota: true })).key;
    openai = f.openai(key);
  });
  afterAll(async () => {
    await f?.close();
  });

  it("is on by default with new-api's two rules", async () => {
    const options = (await f.root.get('/api/option/')).body.data as { key: string; value: string }[];
    const value = (k: string) => options.find((o) => o.key === k)?.value;
    expect(value('channel_affinity_setting.enabled')).toBe('true');
    expect(value('channel_affinity_setting.switch_on_success')).toBe('true');
    expect(value('channel_affinity_setting.default_ttl_seconds')).toBe('3600');
    expect(value('channel_affinity_setting.max_entries')).toBe('100000');
    expect(JSON.parse(value('channel_affinity_setting.rules')!).map((r: { name: string }) => r.name)).toEqual([
      'codex cli trace',
      'claude cli trace',
    ]);
  });

  it('pins a Codex conversation (prompt_cache_key on /v1/responses) to one channel and logs it for admins', async () => {
    const first = await respond('conv-a');
    const firstLog = await logOf(first.requestId);
    expect(firstLog.admin_info.channel_affinity).toBeUndefined();
    for (let i = 0; i < 6; i++) expect((await respond('conv-a')).channel).toBe(first.channel);
    const again = await respond('conv-a');
    expect((await logOf(again.requestId)).admin_info.channel_affinity).toEqual({
      reason: 'codex cli trace',
      rule_name: 'codex cli trace',
      using_group: 'default',
      selected_group: 'default',
      model: GPT,
      request_path: '/v1/responses',
      channel_id: first.channel,
      key_source: 'gjson',
      key_key: '',
      key_path: 'prompt_cache_key',
      key_hint: 'conv-a',
      key_fp: fp('conv-a'),
    });
    // Users never see admin_info.
    const own = (await f.user.client.get('/api/log/self?p=1&page_size=5')).body.data.items as { other: string }[];
    expect(own.length).toBeGreaterThan(0);
    for (const row of own) expect(row.other).not.toContain('channel_affinity');
  });

  it('leaves conversations with different keys to the weighted pick', async () => {
    const used = new Set<number>();
    // Both channels answer 24 fresh conversations unless the pick were broken (chance 2^-23).
    for (let i = 0; i < 24; i++) used.add((await respond(`spread-${i}`)).channel);
    expect(used).toEqual(new Set([a, b]));
  });

  it("pins Claude Code's session (X-Claude-Code-Session-Id on /v1/messages) for the Anthropic client", async () => {
    const anthropic = new Anthropic({
      apiKey: key,
      baseURL: f.gw.url,
      maxRetries: 0,
      defaultHeaders: { 'X-Claude-Code-Session-Id': 'claude-session-1' },
    });
    const channels = new Set<number>();
    for (let i = 0; i < 6; i++) {
      const message = await anthropic.messages.create({ model: CLAUDE, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
      expect(message.content[0]!.type).toBe('text');
      channels.add(lastChannel());
    }
    expect(channels.size).toBe(1);
  });

  it('leaves a pinned channel that was disabled, and pins the one that served instead', async () => {
    const pinned = (await respond('conv-disable')).channel;
    const other = pinned === a ? b : a;
    expect((await f.root.put('/api/channel/', { id: pinned, status: 2 })).body.success).toBe(true);
    expect((await respond('conv-disable')).channel).toBe(other);
    expect((await f.root.put('/api/channel/', { id: pinned, status: 1 })).body.success).toBe(true);
    for (let i = 0; i < 4; i++) expect((await respond('conv-disable')).channel).toBe(other);
  });

  it('does not retry a failing pinned channel elsewhere (skip_retry_on_failure), but a new conversation still fails over', async () => {
    await f.setOption('RetryTimes', '1');
    try {
      const pinned = (await respond('conv-fail')).channel;
      const pinnedKey = pinned === a ? 'sk-affinity-a' : 'sk-affinity-b';
      f.up.script({ path: '/v1/responses', key: pinnedKey, status: 500, errorMessage: 'pinned channel down', times: 1 });
      const calls = f.up.requests.length;
      const error = await openai.responses.create({ model: GPT, input: 'hi', prompt_cache_key: 'conv-fail' }).then(
        () => undefined,
        (e: unknown) => e as ApiError,
      );
      expect(error?.status).toBe(500);
      expect(f.up.requests.length - calls).toBe(1);
      // The pin stays: the channel serves the conversation again once it is back.
      expect((await respond('conv-fail')).channel).toBe(pinned);

      // A conversation with no pin yet is retried on the other channel as usual.
      f.up.script({ path: '/v1/responses', status: 500, errorMessage: 'first pick down', times: 1 });
      const before = f.up.requests.length;
      const served = await respond('conv-fresh');
      expect(f.up.requests.length - before).toBe(2);
      // The pin goes to the channel that answered (switch_on_success).
      for (let i = 0; i < 3; i++) expect((await respond('conv-fresh')).channel).toBe(served.channel);
    } finally {
      await f.setOption('RetryTimes', '0');
    }
  });

  it('runs custom rules: a header key over chat completions, its param override template, and retries when the rule allows', async () => {
    const rules = [
      {
        name: 'by header',
        model_regex: [`^${CHAT}$`],
        path_regex: ['^/v1/chat/completions$'],
        key_sources: [{ type: 'request_header', key: 'X-Session' }],
        param_override_template: { temperature: 0.25 },
        include_rule_name: true,
      },
    ];
    await f.setOption('channel_affinity_setting.rules', rules);
    await f.setOption('RetryTimes', '1');
    try {
      const chat = (session: string) =>
        openai.chat.completions
          .create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'X-Session': session } })
          .withResponse();
      const first = await chat('s-1');
      const pinned = lastChannel();
      expect(f.up.requests.at(-1)!.body.temperature).toBe(0.25);
      expect((await logOf(first.response.headers.get('x-oneapi-request-id'))).admin_info.channel_affinity.override_template).toEqual({
        applied: true,
        rule_name: 'by header',
        param_override_keys: 1,
      });
      for (let i = 0; i < 4; i++) {
        await chat('s-1');
        expect(lastChannel()).toBe(pinned);
      }
      // Without skip_retry_on_failure the pinned channel's failure is retried on the other, which then holds the pin.
      f.up.script({ path: '/v1/chat/completions', key: pinned === a ? 'sk-affinity-a' : 'sk-affinity-b', status: 500, times: 1 });
      await chat('s-1');
      const moved = lastChannel();
      expect(moved).not.toBe(pinned);
      for (let i = 0; i < 3; i++) {
        await chat('s-1');
        expect(lastChannel()).toBe(moved);
      }
      // The default rules are gone with this setting: Codex keys are no longer pinned.
      expect((await stats()).data.by_rule_name).toEqual({ 'by header': 1 });
    } finally {
      await f.setOption('RetryTimes', '0');
      await f.setOption('channel_affinity_setting.rules', OPTION_REGISTRY['channel_affinity_setting.rules'].default);
    }
  });

  it('refuses invalid rules and settings with a message', async () => {
    const put = (k: string, value: string) => f.root.put('/api/option/', { key: k, value });
    const bad = await put(
      'channel_affinity_setting.rules',
      JSON.stringify([{ name: 'x', model_regex: ['('], key_sources: [{ type: 'gjson', path: 'a' }] }]),
    );
    expect(bad.body.success).toBe(false);
    expect(bad.body.message).toMatch(/model_regex\[0\] is not a valid regular expression/);
    expect((await put('channel_affinity_setting.rules', '{"name":"x"}')).body.message).toMatch(/must be a JSON array of rules/);
    expect((await put('channel_affinity_setting.default_ttl_seconds', '0')).body.success).toBe(false);
    expect((await put('channel_affinity_setting.max_entries', 'many')).body.success).toBe(false);
  });

  it('counts the usage and cache hits of a key for the log view', async () => {
    f.up.script({ path: '/v1/responses', usage: { prompt_tokens: 30, completion_tokens: 5, cached_tokens: 12 } });
    try {
      await respond('conv-usage');
      await respond('conv-usage');
    } finally {
      f.up.reset();
    }
    const url = `/api/log/channel_affinity_usage_cache?rule_name=${encodeURIComponent('codex cli trace')}&using_group=default&key_fp=${fp('conv-usage')}`;
    await expect.poll(async () => (await f.root.get(url)).body.data.total, { timeout: 5000, interval: 50 }).toBe(2);
    const data = (await f.root.get(url)).body.data;
    expect(data).toMatchObject({
      rule_name: 'codex cli trace',
      using_group: 'default',
      key_fp: fp('conv-usage'),
      cached_token_rate_mode: 'cached_over_prompt',
      hit: 2,
      total: 2,
      window_seconds: 3600,
      prompt_tokens: 60,
      completion_tokens: 10,
      total_tokens: 70,
      cached_tokens: 24,
    });
    expect(data.last_seen_at).toBeGreaterThan(Date.now() / 1000 - 60);
    const missing = await f.root.get('/api/log/channel_affinity_usage_cache?rule_name=x');
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ success: false, message: 'missing param: key_fp' });
    expect((await f.user.client.get(url)).body.success).toBe(false);
  });

  it('shows the pins by rule and clears one rule or all of them (root only)', async () => {
    await respond('conv-stats');
    const before = (await stats()).data;
    expect(before).toMatchObject({ enabled: true, cache_capacity: 100000, cache_algo: 'lru' });
    expect(before.backend).toBe(f.gw.config.redis ? 'redis' : 'memory');
    expect(before.by_rule_name['codex cli trace']).toBeGreaterThan(0);
    expect(before.by_rule_name['claude cli trace']).toBe(1);
    const noArgs = await f.root.delete('/api/option/channel_affinity_cache');
    expect(noArgs.status).toBe(400);
    expect(noArgs.body.message).toBe('rule_name is required, or all=true to clear every pin');
    expect((await f.root.delete('/api/option/channel_affinity_cache?rule_name=nobody')).body.message).toBe('no rule is named "nobody"');
    const claude = await f.root.delete(`/api/option/channel_affinity_cache?rule_name=${encodeURIComponent('claude cli trace')}`);
    expect(claude.body.data).toEqual({ deleted: 1 });
    expect((await stats()).data.by_rule_name['claude cli trace']).toBe(0);
    const all = await f.root.delete('/api/option/channel_affinity_cache?all=true');
    expect(all.body.data.deleted).toBe(before.total - 1);
    expect((await stats()).data.total).toBe(0);
    expect((await f.user.client.get('/api/option/channel_affinity_cache')).body.success).toBe(false);
  });

  it('pins nothing when turned off', async () => {
    await f.setOption('channel_affinity_setting.enabled', 'false');
    try {
      const used = new Set<number>();
      for (let i = 0; i < 24; i++) used.add((await respond('conv-off')).channel);
      expect(used).toEqual(new Set([a, b]));
      expect((await stats()).data).toMatchObject({ enabled: false, total: 0 });
    } finally {
      await f.setOption('channel_affinity_setting.enabled', 'true');
    }
  });
});

const shared = Boolean(process.env.TEST_MYSQL_URL && process.env.TEST_REDIS_URL);

/** With Redis, the pins are shared: a conversation pinned on one instance goes to the same channel on another. */
describe.runIf(shared)('channel affinity across two instances sharing MariaDB and Redis', () => {
  let f: RelayFixture;
  let other: TestGateway;
  const channelKeys = new Map<string, number>();

  beforeAll(async () => {
    const prefix = `gwaff:${Date.now()}:`;
    f = await startRelayFixture('mysql', { REDIS_KEY_PREFIX: prefix });
    await f.setOption('ModelRatio', { ...RATIOS, [GPT]: 1 });
    channelKeys
      .set('sk-aff-x', await f.channel({ key: 'sk-aff-x', models: GPT }))
      .set('sk-aff-y', await f.channel({ key: 'sk-aff-y', models: GPT }));
    other = await startTestGateway('mysql', { REDIS_KEY_PREFIX: prefix }, f.gw.db);
  });
  afterAll(async () => {
    await other?.close();
    await f?.close();
  });

  it('serves the conversation on the pinned channel from either instance', async () => {
    const key = (await f.token({ unlimited_quota: true })).key;
    const served = () => channelKeys.get(String(f.up.requests.at(-1)!.headers.authorization).replace(/^Bearer\s+/i, ''));
    await f.openai(key).responses.create({ model: GPT, input: 'hi', prompt_cache_key: 'shared-conv' });
    const pinned = served();
    const onOther = new OpenAI({ apiKey: key, baseURL: `${other.url}/v1`, maxRetries: 0 });
    for (let i = 0; i < 8; i++) {
      await onOther.responses.create({ model: GPT, input: 'hi', prompt_cache_key: 'shared-conv' });
      expect(served()).toBe(pinned);
    }
    const onOtherStats = await f.root.get('/api/option/channel_affinity_cache');
    expect(onOtherStats.body.data).toMatchObject({ backend: 'redis', total: 1 });
  });
});
