import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { ChannelHealthService, ChannelMonitorService, ChannelRouter } from '@gw/channel';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

interface IndexRow {
  group: string;
  model: string;
  channel_id: number;
  enabled: boolean;
  priority: number;
  weight: number;
  tag: string | null;
}

const byKey = (a: IndexRow, b: IndexRow) => a.channel_id - b.channel_id || a.group.localeCompare(b.group) || a.model.localeCompare(b.model);

async function waitFor(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`not met in time: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.each(testDatabases())('channel routing index and selection on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let db: DataSource;
  let router: ChannelRouter;
  let up: FakeUpstream;
  let n = 0;

  async function create(channel: Record<string, unknown>, mode = 'single'): Promise<number[]> {
    const res = await root.post('/api/channel/', {
      mode,
      channel: { type: 1, name: `r-${++n}`, key: `sk-route-${n}`, models: 'm-a', base_url: up.url, ...channel },
    });
    expect(res.body.success, res.text).toBe(true);
    return res.body.data.ids;
  }
  const ok = async (res: Promise<{ body: any; text: string }>) => {
    const done = await res;
    expect(done.body.success, done.text).toBe(true);
    return done.body;
  };

  /**
   * The abilities table must be exactly group × model of every channel (enabled = status 1, same
   * priority, weight and tag), and the relay's in-memory table must route exactly the enabled rows.
   */
  async function expectIndexConsistent(step: string): Promise<void> {
    const channels = (await root.get('/api/channel/?p=1&page_size=100&id_sort=true')).body.data.items as any[];
    const expected: IndexRow[] = channels
      .flatMap((c) =>
        String(c.group)
          .split(',')
          .flatMap((group) =>
            String(c.models)
              .split(',')
              .map((model) => ({
                group,
                model,
                channel_id: c.id,
                enabled: c.status === 1,
                priority: c.priority,
                weight: c.weight,
                tag: c.tag || null,
              })),
          ),
      )
      .sort(byKey);
    const rows = (await db.query('SELECT * FROM abilities')) as any[];
    const actual: IndexRow[] = rows
      .map((r) => ({
        group: r.group,
        model: r.model,
        channel_id: Number(r.channel_id),
        enabled: Number(r.enabled) === 1 || r.enabled === true,
        priority: Number(r.priority),
        weight: Number(r.weight),
        tag: r.tag || null,
      }))
      .sort(byKey);
    expect(actual, step).toEqual(expected);

    const routable = new Map<string, number[]>();
    for (const row of expected.filter((r) => r.enabled))
      routable.set(`${row.group}|${row.model}`, [...(routable.get(`${row.group}|${row.model}`) ?? []), row.channel_id]);
    for (const row of expected) {
      const seen = new Set<number>();
      for (let c = router.pick(row.group, row.model, seen); c; c = router.pick(row.group, row.model, seen)) seen.add(c.id);
      expect(
        [...seen].sort((a, b) => a - b),
        `${step}: router ${row.group}/${row.model}`,
      ).toEqual((routable.get(`${row.group}|${row.model}`) ?? []).sort((a, b) => a - b));
    }
    expect(router.enabledModels(), step).toEqual([...new Set(expected.filter((r) => r.enabled).map((r) => r.model))].sort());
  }

  beforeAll(async () => {
    up = await startFakeUpstream();
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    db = gw.gateway.app.get(DataSource);
    router = gw.gateway.app.get(ChannelRouter);
  });
  afterAll(async () => {
    await gw?.close();
    await up?.close();
  });

  it('keeps the abilities table and the in-memory table in step after every kind of write', async () => {
    const [a] = await create({ models: 'm-a,m-b', group: 'default,vip', priority: 3, weight: 7 });
    const batch = await create({ key: ['sk-b1', 'sk-b2', 'sk-b3'].join('\n'), models: 'm-c' }, 'batch');
    await expectIndexConsistent('create single and batch');

    await ok(root.put('/api/channel/', { id: a, name: 'renamed', models: 'm-a,m-d', group: 'vip', priority: 1, weight: 2 }));
    await expectIndexConsistent('full update');
    await ok(root.put('/api/channel/', { id: a, status: 2 }));
    await expectIndexConsistent('status only');
    await ok(root.put('/api/channel/', { id: a, status: 1 }));
    await ok(root.put('/api/channel/', { id: a, priority: 9, weight: 4 }));
    await expectIndexConsistent('priority and weight only');

    await ok(root.post('/api/channel/batch/tag', { ids: [batch[0], batch[1]], tag: 'pool' }));
    await expectIndexConsistent('batch tag');
    await ok(root.put('/api/channel/tag', { tag: 'pool', models: 'm-c,m-e', groups: 'default,svip', priority: 5, weight: 3 }));
    await expectIndexConsistent('edit tag');
    await ok(root.put('/api/channel/tag', { tag: 'pool', new_tag: 'pool2' }));
    await expectIndexConsistent('rename tag');
    await ok(root.post('/api/channel/tag/disabled', { tag: 'pool2' }));
    await expectIndexConsistent('disable tag');
    await ok(root.post('/api/channel/tag/enabled', { tag: 'pool2' }));
    await expectIndexConsistent('enable tag');
    await ok(root.put('/api/channel/tag', { tag: 'pool2', new_tag: '' }));
    await expectIndexConsistent('dissolve tag');

    // Automatic status changes: disabled by relay failures, enabled again by a passing health check.
    await ok(root.put('/api/option/', { key: 'AutomaticDisableChannelEnabled', value: true }));
    await ok(root.put('/api/option/', { key: 'AutomaticEnableChannelEnabled', value: true }));
    await ok(root.put('/api/option/', { key: 'ChannelDisableFailureCount', value: '1' }));
    expect(await gw.gateway.app.get(ChannelHealthService).recordFailure(batch[2]!, { status: 401, message: 'bad key' })).toBe(true);
    await expectIndexConsistent('auto-disable');
    expect((await gw.gateway.app.get(ChannelMonitorService).runCycle()).enabled).toBe(1);
    await expectIndexConsistent('auto-enable');

    await ok(root.delete(`/api/channel/${batch[0]}/`));
    await expectIndexConsistent('delete one');
    await ok(root.put('/api/channel/', { id: batch[1], status: 2 }));
    await ok(root.delete('/api/channel/disabled'));
    await expectIndexConsistent('delete disabled');
    const more = await create({ models: 'm-x' });
    await ok(root.post('/api/channel/batch', { ids: [batch[2], more[0]] }));
    await expectIndexConsistent('batch delete');

    await db.query('DELETE FROM abilities');
    await ok(root.post('/api/channel/fix'));
    await expectIndexConsistent('fix');
  });

  it('respects priority tiers and splits by weight within ±5% over 10,000 picks', async () => {
    const [light] = await create({ models: 'dist-model', priority: 10, weight: 40 });
    const [heavy] = await create({ models: 'dist-model', priority: 10, weight: 60 });
    const [lower] = await create({ models: 'dist-model', priority: 5, weight: 1000 });
    const [disabled] = await create({ models: 'dist-model', priority: 20, weight: 1000 });
    await ok(root.put('/api/channel/', { id: disabled, status: 2 }));

    const counts = new Map<number, number>();
    for (let i = 0; i < 10_000; i++) {
      const id = router.pick('default', 'dist-model')!.id;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual([light, heavy].sort());
    expect(Math.abs(counts.get(light)! / 10_000 - 0.4) / 0.4).toBeLessThan(0.05);
    expect(Math.abs(counts.get(heavy)! / 10_000 - 0.6) / 0.6).toBeLessThan(0.05);

    // Retries: excluded ids are never re-picked; the next tier serves when the top one is used up.
    expect(router.pick('default', 'dist-model', new Set([light]))!.id).toBe(heavy);
    expect(router.pick('default', 'dist-model', new Set([light, heavy]))!.id).toBe(lower);
    expect(router.pick('default', 'dist-model', new Set(), 1)!.id).toBe(lower);
    expect(router.pick('default', 'dist-model', new Set([light, heavy, lower]))).toBeUndefined();
    expect(router.pick('vip', 'dist-model')).toBeUndefined();
  });

  it('picks up changes made by another instance on its SYNC_FREQUENCY reload', async () => {
    // No shared Redis between the two: only the periodic reload can converge them.
    const other = await startTestGateway(kind, { SYNC_FREQUENCY: '1', REDIS_CONN_STRING: '' }, gw.db);
    try {
      const otherRouter = other.gateway.app.get(ChannelRouter);
      const [id] = await create({ models: 'sync-model' });
      await waitFor('the other instance routes the new channel', () => otherRouter.pick('default', 'sync-model')?.id === id);
      await ok(root.put('/api/channel/', { id, status: 2 }));
      await waitFor('the other instance drops the disabled channel', () => otherRouter.pick('default', 'sync-model') === undefined);
    } finally {
      await other.close();
    }
  });
});
