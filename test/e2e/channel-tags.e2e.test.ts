import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

describe.each(testDatabases())('channel tags on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let db: DataSource;
  let n = 0;

  async function create(channel: Record<string, unknown>): Promise<number> {
    const res = await root.post('/api/channel/', {
      mode: 'single',
      channel: { type: 1, key: `sk-tag-${++n}`, models: 'gpt-4o', ...channel },
    });
    expect(res.body.success).toBe(true);
    return res.body.data.ids[0];
  }
  const view = async (id: number) => (await root.get(`/api/channel/${id}`)).body.data;
  const abilitiesOf = async (id: number) =>
    ((await db.query(`SELECT * FROM abilities WHERE channel_id = ${id}`)) as any[])
      .map((r) => ({
        group: r.group,
        model: r.model,
        enabled: Number(r.enabled) === 1 || r.enabled === true,
        priority: Number(r.priority),
        weight: Number(r.weight),
        tag: r.tag,
      }))
      .sort((a, b) => (a.group + a.model).localeCompare(b.group + b.model));

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    db = gw.gateway.app.get(DataSource);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('sets a tag on a selection and validates the request', async () => {
    const a = await create({ name: 'a' });
    const b = await create({ name: 'b' });
    const c = await create({ name: 'c' });
    expect((await root.post('/api/channel/batch/tag', { ids: [a, b], tag: 'blue' })).body).toMatchObject({ success: true, data: 2 });
    expect((await view(a)).tag).toBe('blue');
    expect((await view(c)).tag).toBeNull();
    expect((await abilitiesOf(a))[0]!.tag).toBe('blue');
    expect((await root.post('/api/channel/batch/tag', { ids: [], tag: 'x' })).body).toEqual({
      success: false,
      message: 'please select at least one channel',
    });
    expect((await root.post('/api/channel/batch/tag', { ids: [c], tag: '' })).body).toEqual({ success: false, message: 'tag is required' });
    expect((await root.post('/api/channel/batch/tag', { ids: [c] })).body).toEqual({ success: false, message: 'tag is required' });
  });

  it('lists by tag in tag mode and searches tags', async () => {
    await create({ name: 'green-1', tag: 'green' });
    // Tag buckets, sorted, the untagged channels forming the '' bucket (new-api GetPaginatedTags).
    const list = await root.get('/api/channel/?tag_mode=true&page_size=10');
    expect(list.body.data).toMatchObject({ total: 3, page: 1, page_size: 10, type_counts: { '1': 4 } });
    expect(list.body.data.items.map((c: any) => [c.name, c.tag])).toEqual([
      ['c', null],
      ['b', 'blue'],
      ['a', 'blue'],
      ['green-1', 'green'],
    ]);
    for (const item of list.body.data.items) expect(item.key).toBe('');
    const second = await root.get('/api/channel/?tag_mode=true&p=2&page_size=2');
    expect(second.body.data).toMatchObject({ total: 3, page: 2 });
    expect(second.body.data.items.map((c: any) => c.name)).toEqual(['green-1']);
    const disabledOnly = await root.get('/api/channel/?tag_mode=true&status=disabled');
    expect(disabledOnly.body.data).toMatchObject({ total: 0, items: [] });
    const search = await root.get('/api/channel/search?keyword=gree');
    expect(search.body.data.items.map((c: any) => c.name)).toEqual(['green-1']);
    // Tag mode searches tags: every channel of a tag that has a matching channel (new-api SearchTags).
    await create({ name: 'other-green', tag: 'green' });
    const byTag = await root.get('/api/channel/search?keyword=green-1&tag_mode=true');
    expect(byTag.body.data.items.map((c: any) => c.name)).toEqual(['other-green', 'green-1']);
    expect((await root.get('/api/channel/search?keyword=c&tag_mode=true')).body.data.items).toEqual([]);
  });

  it('edits every channel of a tag and keeps abilities in step', async () => {
    const ids = [await create({ name: 't1', tag: 'edit' }), await create({ name: 't2', tag: 'edit' })];
    const res = await root.put('/api/channel/tag', {
      tag: 'edit',
      priority: 4,
      weight: 6,
      models: 'x1,x2',
      groups: 'default,vip',
      model_mapping: '{"x1":"y1"}',
    });
    expect(res.body).toMatchObject({ success: true, data: 2 });
    for (const id of ids) {
      expect(await view(id)).toMatchObject({
        priority: 4,
        weight: 6,
        models: 'x1,x2',
        group: 'default,vip',
        model_mapping: '{"x1":"y1"}',
        tag: 'edit',
      });
      expect(await abilitiesOf(id)).toEqual([
        { group: 'default', model: 'x1', enabled: true, priority: 4, weight: 6, tag: 'edit' },
        { group: 'default', model: 'x2', enabled: true, priority: 4, weight: 6, tag: 'edit' },
        { group: 'vip', model: 'x1', enabled: true, priority: 4, weight: 6, tag: 'edit' },
        { group: 'vip', model: 'x2', enabled: true, priority: 4, weight: 6, tag: 'edit' },
      ]);
    }
    expect((await root.get('/api/channel/models_enabled')).body.data).toEqual(expect.arrayContaining(['x1', 'x2']));

    expect((await root.put('/api/channel/tag', { tag: 'edit' })).body).toEqual({ success: false, message: 'no changes' });
    expect((await root.put('/api/channel/tag', { tag: 'edit', new_tag: 'edit' })).body).toEqual({ success: false, message: 'no changes' });
    expect((await root.put('/api/channel/tag', { tag: 'edit', priority: 1.2 })).body).toEqual({
      success: false,
      message: 'priority must be an integer',
    });
    expect((await root.put('/api/channel/tag', { tag: 'edit', weight: -1 })).body).toEqual({
      success: false,
      message: 'weight must be non-negative integer',
    });
    expect((await root.put('/api/channel/tag', { tag: 'edit', model_mapping: '{' })).body).toEqual({
      success: false,
      message: 'model mapping must be valid JSON',
    });
    expect((await root.put('/api/channel/tag', { tag: 'nope', priority: 1 })).body.success).toBe(false);

    expect((await root.put('/api/channel/tag', { tag: 'edit', new_tag: 'renamed' })).body.success).toBe(true);
    for (const id of ids) expect((await view(id)).tag).toBe('renamed');
    // An empty new tag dissolves the tag.
    expect((await root.put('/api/channel/tag', { tag: 'renamed', new_tag: '' })).body.success).toBe(true);
    for (const id of ids) {
      expect((await view(id)).tag).toBeNull();
      expect((await abilitiesOf(id))[0]!.tag).toBeNull();
    }
  });

  it('enables and disables a whole tag, updating the routing index', async () => {
    const ids = [await create({ name: 's1', tag: 'sw', models: 'only-sw' }), await create({ name: 's2', tag: 'sw', models: 'only-sw' })];
    expect((await root.post('/api/channel/tag/disabled', { tag: 'sw' })).body).toMatchObject({ success: true, data: 2 });
    for (const id of ids) {
      expect((await view(id)).status).toBe(2);
      expect((await abilitiesOf(id)).every((a) => !a.enabled)).toBe(true);
    }
    expect((await root.get('/api/channel/models_enabled')).body.data).not.toContain('only-sw');
    expect((await root.post('/api/channel/tag/enabled', { tag: 'sw' })).body.success).toBe(true);
    for (const id of ids) expect((await view(id)).status).toBe(1);
    expect((await root.get('/api/channel/models_enabled')).body.data).toContain('only-sw');
    expect((await root.post('/api/channel/tag/enabled', {})).body).toEqual({ success: false, message: 'tag is required' });
  });
});
