import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { CHAT, RATIOS, ratioQuota, startRelayFixture, type RelayFixture } from './relay-fixture.js';

const SPECIAL = 'group_ratio_setting.group_special_usable_group';
const USABLE = { default: '默认分组', vip: 'vip分组', auto: '自动选择' };

/**
 * new-api's `auto` group: AutoGroups, cross_group_retry, GroupSpecialUsableGroup and DefaultUseAutoGroup. The
 * fixture's user is in the `default` group.
 */
describe.each(testDatabases())('relay: the auto group on %s', (kind) => {
  let f: RelayFixture;
  const keyOf = (id: number) => `sk-up-auto-${id}`;
  const models = ['auto-retry', 'auto-default-only', 'auto-vip-only'];

  async function channel(group: string, model: string, priority = 0): Promise<number> {
    const id = await f.channel({ models: model, group, priority });
    await f.root.put('/api/channel/', { id, key: keyOf(id) });
    return id;
  }
  const chat = (key: string, model: string) =>
    f.gw.client().post('/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] }, { Authorization: `Bearer ${key}` });
  const listModels = async (key: string) => {
    const res = await fetch(`${f.gw.url}/v1/models`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { id: string }[] }).data.map((m) => m.id).sort();
  };
  const createToken = (group: string) =>
    f.user.client.post('/api/token/', { name: `g-${group}`, remain_quota: 1000, expired_time: -1, group });

  beforeAll(async () => {
    f = await startRelayFixture(kind, { GENERATE_DEFAULT_TOKEN: 'true' });
    await f.setOption('ModelRatio', { ...RATIOS, ...Object.fromEntries(models.map((m) => [m, 1])) });
    await f.setOption('GroupRatio', { default: 1, vip: 2, svip: 3 });
    await f.setOption('UserUsableGroups', USABLE);
    await f.setOption('AutoGroups', ['default', 'vip']);
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  it('ships new-api’s defaults and checks the values', async () => {
    const options = (await f.root.get('/api/option/')).body.data as { key: string; value: string }[];
    const value = (key: string) => options.find((o) => o.key === key)?.value;
    expect(value('DefaultUseAutoGroup')).toBe('false');
    expect(JSON.parse(value(SPECIAL)!)).toEqual({ vip: { append_1: 'vip_special_group_1', '-:remove_1': 'vip_removed_group_1' } });
    const bad = async (key: string, v: string) => (await f.root.put('/api/option/', { key, value: v })).body.success;
    expect(await bad('AutoGroups', '{"a":1}')).toBe(false);
    expect(await bad('AutoGroups', '[1]')).toBe(false);
    expect(await bad(SPECIAL, '{"vip":{"+:a":1}}')).toBe(false);
    expect(await bad(SPECIAL, '[]')).toBe(false);
  });

  it('lists `auto` with its label when usable, and follows GroupSpecialUsableGroup in the list and token creation', async () => {
    const groups = async () =>
      (await f.user.client.get('/api/user/self/groups')).body.data as Record<string, { desc: string; ratio: unknown }>;
    expect(await groups()).toEqual({
      default: { desc: '默认分组', ratio: 1 },
      vip: { desc: 'vip分组', ratio: 2 },
      auto: { desc: '自动选择', ratio: '自动' },
    });
    expect((await createToken('auto')).body.success).toBe(true);

    await f.setOption(SPECIAL, { default: { '+:svip': '超级', '-:vip': 'gone', '-:auto': 'gone' } });
    expect(await groups()).toEqual({ default: { desc: '默认分组', ratio: 1 }, svip: { desc: '超级', ratio: 3 } });
    expect((await createToken('svip')).body.success).toBe(true);
    expect((await createToken('vip')).body.success).toBe(false);
    expect((await createToken('auto')).body.success).toBe(false);

    // Without `auto` in UserUsableGroups, GroupSpecialUsableGroup can still grant it.
    await f.setOption('UserUsableGroups', { default: '默认分组', vip: 'vip分组' });
    await f.setOption(SPECIAL, { default: { auto: '智能路由' } });
    expect((await groups()).auto).toEqual({ desc: '智能路由', ratio: '自动' });
    await f.setOption(SPECIAL, {});
    expect((await groups()).auto).toBeUndefined();
    expect((await createToken('auto')).body.success).toBe(false);
    await f.setOption('UserUsableGroups', USABLE);
  });

  it('serves an auto token from the first auto group with a channel, billed and logged in that group', async () => {
    const vip = await channel('vip', CHAT);
    const token = await f.token({ group: 'auto' });
    const res = await chat(token.key, CHAT);
    expect(res.status, res.text).toBe(200);
    expect(f.up.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${keyOf(vip)}`]);
    const log = await f.settled(res.headers.get('x-oneapi-request-id'));
    expect(log.group).toBe('vip');
    expect(log.channelId).toBe(vip);
    expect(Number(log.quota)).toBe(ratioQuota(CHAT, 10, 20, 2));
    expect(JSON.parse(log.other).group_ratio).toBe(2);

    // A channel in the earlier auto group takes over, at that group's ratio.
    const def = await channel('default', CHAT);
    const again = await chat(token.key, CHAT);
    expect(again.status, again.text).toBe(200);
    const second = await f.settled(again.headers.get('x-oneapi-request-id'));
    expect([second.group, second.channelId, Number(second.quota)]).toEqual(['default', def, ratioQuota(CHAT, 10, 20, 1)]);
  });

  it('moves to the next auto group when a group’s retries are spent only with cross_group_retry', async () => {
    const def = await channel('default', 'auto-retry');
    const vip = await channel('vip', 'auto-retry');
    f.up.script({ key: keyOf(def), status: 500, errorMessage: 'default is down' });
    await f.setOption('RetryTimes', '1');
    const cross = await f.token({ group: 'auto', cross_group_retry: true });
    const stay = await f.token({ group: 'auto', cross_group_retry: false });

    const served = await chat(cross.key, 'auto-retry');
    expect(served.status, served.text).toBe(200);
    expect(f.up.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${keyOf(def)}`, `Bearer ${keyOf(vip)}`]);
    const log = await f.settled(served.headers.get('x-oneapi-request-id'));
    expect([log.group, log.channelId]).toEqual(['vip', vip]);
    expect(JSON.parse(log.other).admin_info.use_channel).toEqual([String(def), String(vip)]);
    expect(JSON.parse(log.other).group_ratio).toBe(2);

    f.up.reset();
    f.up.script({ key: keyOf(def), status: 500, errorMessage: 'default is down' });
    const before = await f.quota(f.user.id);
    const failed = await chat(stay.key, 'auto-retry');
    expect(failed.status).toBe(500);
    expect(failed.body.error.message).toContain('default is down');
    expect(f.up.requests).toHaveLength(1);
    expect(await f.quota(f.user.id)).toBe(before);

    // RetryTimes 0: no retry at all, so no other group either (new-api).
    await f.setOption('RetryTimes', '0');
    f.up.reset();
    f.up.script({ key: keyOf(def), status: 500, errorMessage: 'default is down' });
    expect((await chat(cross.key, 'auto-retry')).status).toBe(500);
    expect(f.up.requests).toHaveLength(1);
  });

  it('lists the models of every auto group on /v1/models for an auto token', async () => {
    await channel('default', 'auto-default-only');
    await channel('vip', 'auto-vip-only');
    const auto = await f.token({ group: 'auto' });
    const vipOnly = await f.token({ group: 'vip' });
    const listed = await listModels(auto.key);
    expect(listed).toEqual(expect.arrayContaining(['auto-default-only', 'auto-vip-only', CHAT]));
    expect(await listModels(vipOnly.key)).not.toContain('auto-default-only');
    // An auto group the user may not use is not walked.
    await f.setOption(SPECIAL, { default: { '-:vip': '' } });
    expect(await listModels(auto.key)).not.toContain('auto-vip-only');
    expect((await chat(auto.key, 'auto-vip-only')).status).toBe(503);
    await f.setOption(SPECIAL, {});
    expect((await f.user.client.get('/api/pricing')).body.auto_groups).toEqual(['default', 'vip']);
  });

  it('gives new users an auto initial token with DefaultUseAutoGroup on, and says so in /api/status', async () => {
    const signUp = async (username: string) => {
      const client = f.gw.client();
      expect((await client.post('/api/user/register', { username, password: 'password-123' })).body.success).toBe(true);
      expect((await client.login(username, 'password-123')).body.success).toBe(true);
      return (await client.get('/api/token/?p=1&page_size=10')).body.data.items as { group: string }[];
    };
    expect((await signUp('plainauto')).map((t) => t.group)).toEqual(['']);
    await f.setOption('DefaultUseAutoGroup', 'true');
    expect((await f.gw.client().get('/api/status')).body.data.default_use_auto_group).toBe(true);
    expect((await signUp('autofirst')).map((t) => t.group)).toEqual(['auto']);
    await f.setOption('DefaultUseAutoGroup', 'false');
  });
});
