import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

describe.each(testDatabases())('GET /api/pricing on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let keys = 0;

  async function channel(models: string, group: string, status = 1): Promise<void> {
    const res = await root.post('/api/channel/', {
      mode: 'single',
      channel: { name: `pricing-${++keys}`, type: 1, key: `sk-pricing-${keys}-abcdefgh`, models, group },
    });
    expect(res.body.success, res.text).toBe(true);
    if (status !== 1) {
      const update = await root.put('/api/channel/', { id: res.body.data.ids[0], status });
      expect(update.body.success, update.text).toBe(true);
    }
  }

  async function setOption(key: string, value: unknown): Promise<void> {
    const res = await root.put('/api/option/', { key, value: JSON.stringify(value) });
    expect(res.body.success, res.text).toBe(true);
  }

  const rowsByName = (body: any) => Object.fromEntries((body.data as any[]).map((row) => [row.model_name, row]));

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    await setOption('ModelRatio', { 'p-ratio': 2, 'p-vip': 1, 'p-hidden': 3, 'gpt-4o-mini': 0.2 });
    await setOption('CompletionRatio', { 'p-ratio': 3 });
    await setOption('ModelPrice', { 'p-price': 0.05 });
    await setOption('GroupRatio', { default: 1, vip: 0.8, hidden: 5 });
    await channel('p-ratio,p-price,p-unset,gpt-4o-mini', 'default');
    await channel('p-vip,p-ratio', 'vip');
    await channel('p-hidden', 'hidden');
    await channel('p-off', 'default', 2);
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('shows guests every model of the default usable groups, with new-api row shapes', async () => {
    const res = await gw.client().get('/api/pricing');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'auto_groups',
      'data',
      'group_ratio',
      'message',
      'success',
      'supported_endpoint',
      'usable_group',
    ]);
    expect(res.body).toMatchObject({
      success: true,
      message: '',
      group_ratio: { default: 1, vip: 0.8 },
      usable_group: { default: '默认分组', vip: 'vip分组' },
    });
    expect(res.body.group_ratio).not.toHaveProperty('hidden');
    const rows = rowsByName(res.body);
    expect(Object.keys(rows).sort()).toEqual(['gpt-4o-mini', 'p-price', 'p-ratio', 'p-unset', 'p-vip']);
    expect(rows['p-ratio']).toEqual({
      model_name: 'p-ratio',
      quota_type: 0,
      model_ratio: 2,
      completion_ratio: 3,
      model_price: 0,
      owner_by: '',
      enable_groups: ['default', 'vip'],
      supported_endpoint_types: ['openai', 'openai-response', 'openai-response-compact'],
    });
    expect(res.body.supported_endpoint).toEqual({
      openai: { path: '/v1/chat/completions', method: 'POST' },
      'openai-response': { path: '/v1/responses', method: 'POST' },
      'openai-response-compact': { path: '/v1/responses/compact', method: 'POST' },
    });
    expect(rows['p-price']).toMatchObject({ quota_type: 1, model_price: 0.05, model_ratio: 0, enable_groups: ['default'] });
    // Unpriced: new-api's sentinel ratio. No CompletionRatio entry: the built-in table (1 by default, 4 for gpt-4o*).
    expect(rows['p-unset']).toMatchObject({ quota_type: 0, model_ratio: 37.5, completion_ratio: 1 });
    expect(rows['gpt-4o-mini']).toMatchObject({ quota_type: 0, model_ratio: 0.2, completion_ratio: 4 });
  });

  it("shows a user of another group that group's models and ratio too", async () => {
    expect((await root.post('/api/user/', { username: 'hiddenuser', password: 'password-123' })).body.success).toBe(true);
    const found = await root.get('/api/user/search?keyword=hiddenuser');
    const id = found.body.data.items[0].id;
    expect((await root.put('/api/user/', { id, group: 'hidden' })).body.success).toBe(true);
    const user = gw.client();
    expect((await user.login('hiddenuser', 'password-123')).body.success).toBe(true);

    const res = await user.get('/api/pricing');
    expect(res.body.usable_group).toEqual({ default: '默认分组', vip: 'vip分组', hidden: '用户分组' });
    expect(res.body.group_ratio).toEqual({ default: 1, vip: 0.8, hidden: 5 });
    expect(rowsByName(res.body)['p-hidden']).toMatchObject({ model_ratio: 3, enable_groups: ['hidden'] });

    // GroupGroupRatio: what the hidden group pays in vip, for its users only (new-api's group-to-group ratio).
    await setOption('GroupGroupRatio', { hidden: { vip: 0.25 } });
    expect((await user.get('/api/pricing')).body.group_ratio).toEqual({ default: 1, vip: 0.25, hidden: 5 });
    expect((await user.get('/api/user/self/groups')).body.data.vip).toEqual({ desc: 'vip分组', ratio: 0.25 });
    expect((await gw.client().get('/api/pricing')).body.group_ratio).toEqual({ default: 1, vip: 0.8 });
    await setOption('GroupGroupRatio', {});
  });

  it("serves GET /api/ratio_config only while ExposeRatioEnabled is on (other new-api sites' ratio sync)", async () => {
    const off = await gw.client().get('/api/ratio_config');
    expect(off.status).toBe(403);
    expect(off.body).toMatchObject({ success: false });
    await root.put('/api/option/', { key: 'ExposeRatioEnabled', value: 'true' });
    const on = await gw.client().get('/api/ratio_config');
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({
      success: true,
      data: { model_ratio: { 'p-ratio': 2 }, completion_ratio: { 'p-ratio': 3 }, model_price: { 'p-price': 0.05 } },
    });
    expect(Object.keys(on.body.data).sort()).toEqual([
      'cache_ratio',
      'completion_ratio',
      'create_cache_ratio',
      'model_price',
      'model_ratio',
    ]);
    await root.put('/api/option/', { key: 'ExposeRatioEnabled', value: 'false' });
  });

  it('reflects POST /api/option/rest_model_ratio: custom ratios and prices go back to the built-in defaults', async () => {
    const reset = await root.post('/api/option/rest_model_ratio');
    expect(reset.body.success, reset.text).toBe(true);
    const rows = rowsByName((await gw.client().get('/api/pricing')).body);
    expect(rows['p-ratio']).toMatchObject({ quota_type: 0, model_ratio: 37.5, completion_ratio: 1 });
    expect(rows['p-price']).toMatchObject({ quota_type: 0, model_ratio: 37.5, model_price: 0 });
    expect(rows['gpt-4o-mini']).toMatchObject({ quota_type: 0, model_ratio: 0.075, completion_ratio: 4 });
    // Group ratios are not model ratios: the reset keeps them.
    expect((await gw.client().get('/api/pricing')).body.group_ratio).toEqual({ default: 1, vip: 0.8 });
  });

  it('answers on the trailing-slash form and ignores a bad session instead of failing', async () => {
    const anon = gw.client();
    anon.cookie = 'session=garbage';
    const res = await anon.get('/api/pricing/');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.usable_group).toEqual({ default: '默认分组', vip: 'vip分组' });
  });
});
