import { describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../fake-upstream/index.js';
import { ensureServerBuilt } from '../support/built-server.js';
import { startGatewayChild } from '../support/gateway-child.js';
import { openSqlReader } from '../support/sql-reader.js';
import { createChannel, expectOk, fresh, MODELS, PRICE_QUOTA } from './multi-instance-ledger-suite.js';
import { waitFor } from './relay-fixture.js';

describe('WORKERS=2: the primary replaces a crashed worker and drains them all on SIGTERM', () => {
  it('replaces a worker that crashes, and keeps serving', async () => {
    ensureServerBuilt();
    const gw = await startGatewayChild({ WORKERS: '2' });
    try {
      const pids = () => new Set([...gw.output().matchAll(/worker (\d+) listening/g)].map((m) => Number(m[1])));
      const [victim] = [...pids()];
      process.kill(victim!, 'SIGKILL');
      await waitFor(async () => (pids().size === 3 ? true : undefined), 'a new worker to listen', 30_000);
      expect(gw.output()).toContain(`worker ${victim} died (SIGKILL): starting a new one`);
      for (let i = 0; i < 4; i++) expect((await fresh(gw.url).get('/api/status')).status).toBe(200);
      gw.child.kill('SIGTERM');
      expect(await gw.exited, gw.output().slice(-2000)).toEqual({ code: 0, signal: null });
    } finally {
      if (gw.child.exitCode === null) gw.child.kill('SIGKILL');
    }
  }, 120_000);

  const STREAMS = 20;
  const REPLY = Array.from({ length: 15 }, (_, i) => `w${i}`).join(' ');

  it(`finishes ${STREAMS} streams (one connection each, dealt round-robin to the workers), flushes each worker's batched counters and logs, exits 0`, async () => {
    ensureServerBuilt();
    const up = await startFakeUpstream();
    up.script({ path: '/v1/chat/completions', reply: REPLY, chunkDelayMs: 100 });
    // Counters and log rows are only written by each worker's shutdown flush: the batch timers are far away.
    const gw = await startGatewayChild({ WORKERS: '2', BATCH_UPDATE_ENABLED: 'true', BATCH_UPDATE_INTERVAL: '600' });
    try {
      const root = await gw.setupRoot();
      expectOk(await root.put('/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODELS.steady]: 0.001 }) }));
      await createChannel(root, up.url, 'drain', 0);
      expectOk(await root.post('/api/token/', { name: 'drain', remain_quota: 0, unlimited_quota: true, expired_time: -1 }));
      const tokenId = (await root.get('/api/token/search?keyword=drain')).body.data.items[0].id as number;
      const key = (await root.post(`/api/token/${tokenId}/key`)).body.data.key as string;
      const before = (await root.get('/api/user/self')).body.data as { quota: number; used_quota: number };

      let started = 0;
      let allStarted!: () => void;
      const streaming = new Promise<void>((resolve) => (allStarted = resolve));
      // One connection per stream, so the primary hands them to both workers.
      const runs = Array.from({ length: STREAMS }, async () => {
        const res = await fetch(`${gw.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ model: MODELS.steady, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
          signal: AbortSignal.timeout(60_000),
        });
        const reader = res.body!.getReader();
        let text = '';
        let first = true;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (first && ++started === STREAMS) allStarted();
          first = false;
          text += Buffer.from(value).toString();
        }
        return { status: res.status, text };
      });
      await streaming;
      gw.child.kill('SIGTERM');
      const results = await Promise.all(runs);
      expect(await gw.exited, gw.output().slice(-3000)).toEqual({ code: 0, signal: null });
      for (const r of results) {
        expect(r.status).toBe(200);
        expect(r.text).toContain('[DONE]');
        expect(r.text).toContain('w14');
      }
      const workerPids = new Set([...gw.output().matchAll(/worker (\d+) listening/g)].map((m) => m[1]));
      expect(workerPids.size).toBe(2);

      const sql = await openSqlReader({ kind: 'sqlite', env: { SQLITE_PATH: gw.sqlitePath }, drop: async () => undefined });
      try {
        const [logs] = await sql.rows<{ n: number; total: number }>(
          'SELECT COUNT(*) AS n, COALESCE(SUM(quota), 0) AS total FROM logs WHERE type = 2 AND model_name = ?',
          [MODELS.steady],
        );
        const [user] = await sql.rows<{ quota: number; used_quota: number }>('SELECT quota, used_quota FROM users WHERE id = ?', [
          root.userId,
        ]);
        const [channel] = await sql.rows<{ used_quota: number }>('SELECT used_quota FROM channels');
        expect(Number(logs!.n)).toBe(STREAMS);
        expect(Number(logs!.total)).toBe(STREAMS * PRICE_QUOTA);
        expect(before.quota - Number(user!.quota)).toBe(STREAMS * PRICE_QUOTA);
        expect(Number(user!.used_quota) - before.used_quota).toBe(STREAMS * PRICE_QUOTA);
        expect(Number(channel!.used_quota)).toBe(STREAMS * PRICE_QUOTA);
      } finally {
        await sql.close();
      }
    } finally {
      if (gw.child.exitCode === null) gw.child.kill('SIGKILL');
      await up.close();
    }
  }, 180_000);
});
