import { describe, expect, it } from 'vitest';
import type { ChannelView } from '../../contracts';
import { addCustomModels, emptyForm, endsWithV1, formFromChannel, toPayload, validateForm } from './channel-form';
import { groupByTag, responseTimeColor, statusReason } from './channel-rows';

const channel = (over: Partial<ChannelView>): ChannelView =>
  ({
    id: 1,
    type: 1,
    key: '',
    openai_organization: null,
    test_model: null,
    status: 1,
    name: 'c',
    weight: 0,
    created_time: 0,
    test_time: 0,
    response_time: 0,
    base_url: '',
    other: '',
    balance: 0,
    balance_updated_time: 0,
    models: 'gpt-4o',
    group: 'default',
    used_quota: 0,
    model_mapping: '',
    status_code_mapping: '',
    priority: 0,
    auto_ban: 1,
    other_info: '',
    tag: null,
    setting: '',
    param_override: '',
    header_override: '',
    max_input_tokens: 0,
    remark: null,
    channel_info: { is_multi_key: false, multi_key_size: 0, multi_key_status_list: null, multi_key_polling_index: 0, multi_key_mode: '' },
    ...over,
  }) as ChannelView;

describe('channel form', () => {
  const filled = () => ({ ...emptyForm(), name: 'n', key: 'sk-1', models: ['gpt-4o'] });

  it('refuses what spec 001 §5 refuses, in order', () => {
    expect(validateForm(emptyForm(), true)).toBe('channels.error.nameAndKey');
    expect(validateForm({ ...emptyForm(), name: 'x' }, false)).toBe('channels.error.models');
    expect(validateForm({ ...filled(), model_mapping: '{"a":' }, true)).toBe('channels.error.modelMapping');
    expect(validateForm({ ...filled(), model_mapping: '[1]' }, true)).toBe('channels.error.modelMapping');
    expect(validateForm({ ...filled(), header_override: 'nope' }, true)).toBe('channels.error.json');
    expect(validateForm({ ...filled(), priority: -1000 }, true)).toBe('channels.error.priority');
    expect(validateForm({ ...filled(), weight: 1.5 }, true)).toBe('channels.error.weight');
    expect(validateForm({ ...filled(), model_mapping: '{"a":"b"}' }, true)).toBeNull();
    // An edit may leave the key empty (the stored one is kept).
    expect(validateForm({ ...filled(), key: '' }, false)).toBeNull();
  });

  it('builds the create body: trailing slash stripped, type defaults, compact JSON, multi-key mode', () => {
    const body = toPayload({
      ...filled(),
      type: 18,
      base_url: 'https://x.test/ ',
      model_mapping: '{\n "a": "b"\n}',
      groups: ['default', 'vip'],
    });
    expect(body).toEqual({
      mode: 'single',
      channel: expect.objectContaining({
        base_url: 'https://x.test',
        other: 'v2.1',
        model_mapping: '{"a":"b"}',
        group: 'default,vip',
        key: 'sk-1',
        auto_ban: 1,
      }),
    });
    expect(toPayload({ ...filled(), keyMode: 'batch' }).mode).toBe('batch');
    expect(toPayload({ ...filled(), keyMode: 'multi', multiKeyMode: 'polling' })).toMatchObject({
      mode: 'multi_to_single',
      multi_key_mode: 'polling',
    });
    expect(toPayload({ ...filled(), key: '  ' }, 7).channel).not.toHaveProperty('key');
    expect(toPayload(filled(), 7).channel.id).toBe(7);
  });

  it('reads a channel back into the form and flags /v1 base URLs', () => {
    const form = formFromChannel(channel({ models: 'a, b', group: 'default,vip', model_mapping: '{"a":"b"}', auto_ban: 0, tag: 't' }));
    expect(form).toMatchObject({ models: ['a', 'b'], groups: ['default', 'vip'], auto_ban: false, tag: 't', key: '' });
    expect(form.model_mapping).toBe('{\n  "a": "b"\n}');
    expect(endsWithV1('https://api.x/v1/')).toBe(true);
    expect(endsWithV1('https://api.x/v1beta')).toBe(false);
  });

  it("edits Vertex AI's key type inside the stored other settings, keeping the rest; other types send none", () => {
    const stored = JSON.stringify({ vertex_key_type: 'api_key', allow_service_tier: true });
    const form = formFromChannel(channel({ type: 41, settings: stored }));
    expect(form.vertexKeyType).toBe('api_key');
    expect(JSON.parse(toPayload(form, 1).channel.settings!)).toEqual({ vertex_key_type: 'api_key', allow_service_tier: true });
    expect(JSON.parse(toPayload({ ...form, vertexKeyType: 'json' }, 1).channel.settings!)).toEqual({ allow_service_tier: true });
    const plain = formFromChannel(channel({ type: 41, settings: '' }));
    expect(plain.vertexKeyType).toBe('json');
    expect(toPayload(plain, 1).channel.settings).toBe('');
    expect(toPayload({ ...plain, vertexKeyType: 'api_key' }).channel.settings).toBe('{"vertex_key_type":"api_key"}');
    expect(toPayload(formFromChannel(channel({ type: 1, settings: stored })), 1).channel).not.toHaveProperty('settings');
  });

  it('adds custom models once and reports duplicates', () => {
    expect(addCustomModels(['a'], 'b, a ,c,,b')).toEqual({ models: ['a', 'b', 'c'], duplicates: ['a', 'b'] });
  });
});

describe('channel rows', () => {
  it('folds tagged channels under one row per tag and keeps untagged ones on top', () => {
    const rows = groupByTag([
      channel({ id: 1 }),
      channel({ id: 2, tag: 'x', priority: 5, weight: 1, group: 'a', used_quota: 10 }),
      channel({ id: 3, tag: 'x', priority: 5, weight: 2, group: 'b,a', used_quota: 5, status: 2 }),
      channel({ id: 4, tag: 'y' }),
    ]);
    expect(rows.map((row) => row.id)).toEqual([1, -1, -2]);
    expect(rows[1]).toMatchObject({ isTag: true, tag: 'x', priority: 5, weight: null, group: 'a,b', used_quota: 15, enabledCount: 1 });
    expect((rows[1] as { children: ChannelView[] }).children.map((c) => c.id)).toEqual([2, 3]);
  });

  it('colours response times and reads the auto-disable reason', () => {
    expect([0, 900, 2500, 4000, 9000].map(responseTimeColor)).toEqual(['grey', 'green', 'lime', 'yellow', 'red']);
    expect(statusReason(channel({ other_info: '{"status_reason":"401 bad key","status_time":5}' }))).toEqual({
      reason: '401 bad key',
      time: 5,
    });
    expect(statusReason(channel({ other_info: 'garbage' }))).toBeNull();
  });
});
