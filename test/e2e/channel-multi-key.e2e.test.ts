import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { CHAT, startRelayFixture, waitFor, type RelayFixture } from './relay-fixture.js';

const KEYS = ['mk-key-alpha', 'mk-key-bravo', 'mk-key-charlie'];
const bearer = (key: string) => `Bearer ${key}`;

/** new-api's multi-key channels: one channel, several provider keys, one key per upstream call. */
describe.each(testDatabases())('multi-key channels on %s', (kind) => {
  let f: RelayFixture;
  let token: { id: number; key: string };

  const usedKeys = () => f.up.requests.map((request) => request.headers.authorization);
  const chat = () => f.openai(token.key).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] });
  const manage = async (channel_id: number, action: string, key_index?: number) => {
    const res = await f.root.post('/api/channel/multi_key/manage', { channel_id, action, key_index });
    expect(res.body.success, res.text).toBe(true);
    return res.body.data;
  };
  const createMulti = async (mode: 'polling' | 'random', keys = KEYS) => {
    const res = await f.root.post('/api/channel/', {
      mode: 'multi_to_single',
      multi_key_mode: mode,
      channel: { type: 1, name: `multi-${mode}`, key: keys.join('\n'), models: CHAT, group: 'default', base_url: f.up.url },
    });
    expect(res.body.success, res.text).toBe(true);
    return res.body.data.ids[0] as number;
  };
  const setStatus = (id: number, status: number) => f.root.put('/api/channel/', { id, status });

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    token = await f.token({ unlimited_quota: true });
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  it('creates one channel for all keys and reports its multi-key state without the keys', async () => {
    const id = await createMulti('polling');
    const view = (await f.root.get(`/api/channel/${id}`)).body.data;
    expect(view.key).toBe('');
    expect(view.channel_info).toMatchObject({ is_multi_key: true, multi_key_size: 3, multi_key_mode: 'polling' });
    const status = await manage(id, 'get_key_status');
    expect(status).toMatchObject({ total: 3, enabled_count: 3, multi_key_mode: 'polling' });
    expect(JSON.stringify(status)).not.toContain(KEYS[0]);
    await setStatus(id, 2);
  });

  it('polls the keys in turn and skips a disabled key', async () => {
    const id = await createMulti('polling');
    for (let i = 0; i < 4; i++) await chat();
    expect(usedKeys()).toEqual([KEYS[0], KEYS[1], KEYS[2], KEYS[0]].map(bearer));

    await manage(id, 'disable_key', 1);
    f.up.reset();
    for (let i = 0; i < 4; i++) await chat();
    expect(usedKeys()).not.toContain(bearer(KEYS[1]));
    expect(new Set(usedKeys())).toEqual(new Set([bearer(KEYS[0]), bearer(KEYS[2])]));
    await setStatus(id, 2);
  });

  it('auto-disables only the failing key and keeps serving with the others; the channel goes when its last key does', async () => {
    await f.setOption('AutomaticDisableChannelEnabled', 'true');
    await f.setOption('ChannelDisableFailureCount', '1');
    await f.setOption('RetryTimes', '0');
    const id = await createMulti('polling', ['mk-bad-one', 'mk-good-two']);
    f.up.script({ key: 'mk-bad-one', status: 401, errorMessage: 'invalid api key' });
    await expect(chat()).rejects.toThrow();
    const status = await waitFor(async () => {
      const data = await manage(id, 'get_key_status');
      return data.auto_disabled_count === 1 ? data : undefined;
    }, 'the key to be disabled');
    expect(status.keys[0]).toMatchObject({ index: 0, status: 3 });
    expect(status.keys[0].disabled_reason).toContain('401');
    expect(status.keys[1]).toMatchObject({ index: 1, status: 1 });
    expect((await f.root.get(`/api/channel/${id}`)).body.data.status).toBe(1);

    f.up.reset();
    for (let i = 0; i < 3; i++) await chat();
    expect(usedKeys()).toEqual([bearer('mk-good-two'), bearer('mk-good-two'), bearer('mk-good-two')]);

    // The last key failing takes the whole channel out.
    f.up.script({ key: 'mk-good-two', status: 401, errorMessage: 'invalid api key' });
    await expect(chat()).rejects.toThrow();
    await waitFor(
      async () => ((await f.root.get(`/api/channel/${id}`)).body.data.status === 3 ? true : undefined),
      'the channel to be disabled',
    );

    // Enabling a key brings an auto-disabled channel back.
    f.up.reset();
    await manage(id, 'enable_key', 1);
    expect((await f.root.get(`/api/channel/${id}`)).body.data.status).toBe(1);
    await chat();
    expect(usedKeys()).toEqual([bearer('mk-good-two')]);
    await f.setOption('AutomaticDisableChannelEnabled', 'false');
    await setStatus(id, 2);
  });

  it('a failed health check disables the tested key, not the channel', async () => {
    await f.setOption('AutomaticDisableChannelEnabled', 'true');
    await f.setOption('ChannelDisableFailureCount', '1');
    const id = await createMulti('random', ['mk-test-bad', 'mk-test-good']);
    f.up.script({ key: 'mk-test-bad', status: 401, errorMessage: 'invalid api key' });
    expect((await f.root.get('/api/channel/test')).body.success).toBe(true);
    const status = await waitFor(
      async () => {
        const data = await manage(id, 'get_key_status');
        return data.auto_disabled_count === 1 ? data : undefined;
      },
      'the tested key to be disabled',
      15_000,
    );
    expect(status.keys.map((key: { status: number }) => key.status)).toEqual([3, 1]);
    expect((await f.root.get(`/api/channel/${id}`)).body.data.status).toBe(1);
    await f.setOption('AutomaticDisableChannelEnabled', 'false');
    await setStatus(id, 2);
  });

  it('appends or replaces keys on edit and switches the mode', async () => {
    const id = await createMulti('random', ['mk-a1', 'mk-a2']);
    await manage(id, 'disable_key', 0);
    const appended = await f.root.put('/api/channel/', { id, key: 'mk-a3\nmk-a2', key_mode: 'append', multi_key_mode: 'polling' });
    expect(appended.body.success, appended.text).toBe(true);
    expect(appended.body.data.channel_info).toMatchObject({
      multi_key_size: 3,
      multi_key_mode: 'polling',
      multi_key_status_list: { 0: 2 },
    });

    const replaced = await f.root.put('/api/channel/', { id, key: 'mk-b1' });
    expect(replaced.body.data.channel_info).toMatchObject({ multi_key_size: 1, multi_key_status_list: {} });
    await chat();
    expect(usedKeys()).toEqual([bearer('mk-b1')]);
    await setStatus(id, 2);
  });

  it('rejects bad requests with clear messages', async () => {
    const single = await f.channel();
    const notMulti = await f.root.post('/api/channel/multi_key/manage', { channel_id: single, action: 'get_key_status' });
    expect(notMulti.body).toMatchObject({ success: false, message: 'this channel is not a multi-key channel' });
    const id = await createMulti('random', ['mk-c1']);
    const outOfRange = await f.root.post('/api/channel/multi_key/manage', { channel_id: id, action: 'disable_key', key_index: 5 });
    expect(outOfRange.body).toMatchObject({ success: false, message: 'key_index is out of range' });
    const lastKey = await f.root.post('/api/channel/multi_key/manage', { channel_id: id, action: 'delete_key', key_index: 0 });
    expect(lastKey.body).toMatchObject({ success: false, message: 'a multi-key channel keeps at least one key' });
    const badAction = await f.root.post('/api/channel/multi_key/manage', { channel_id: id, action: 'explode' });
    expect(badAction.body.success).toBe(false);
    expect(badAction.status).toBeLessThan(500);
    const badMode = await f.root.post('/api/channel/', {
      mode: 'multi_to_single',
      multi_key_mode: 'sometimes',
      channel: { name: 'x', key: 'k', models: CHAT },
    });
    expect(badMode.body.success).toBe(false);
    await setStatus(single, 2);
    await setStatus(id, 2);
  });
});
