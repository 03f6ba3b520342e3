import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { ChannelMonitorService, ChannelNotifyService } from '@gw/channel';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

interface Mail {
  to: string[];
  body: string;
}

/** A loopback SMTP server that keeps what it receives. */
async function startMailbox(): Promise<{ port: number; mails: Mail[]; close(): Promise<void> }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const body = Buffer.concat(chunks)
          .toString('utf8')
          .replace(/=\r?\n/g, '');
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), body });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function waitFor(what: string, check: () => boolean): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > 10_000) throw new Error(`not met in time: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(testDatabases())('channel health: root notices and one runner per database on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let up: FakeUpstream;
  let mailbox: Awaited<ReturnType<typeof startMailbox>>;
  let n = 0;

  async function create(channel: Record<string, unknown>): Promise<number> {
    const res = await root.post('/api/channel/', {
      mode: 'single',
      channel: { type: 1, name: `hc-${++n}`, key: `sk-hc-${n}`, models: 'gpt-4o-mini', base_url: up.url, ...channel },
    });
    expect(res.body.success, res.text).toBe(true);
    return res.body.data.ids[0];
  }
  const setOption = async (key: string, value: unknown) => expect((await root.put('/api/option/', { key, value })).body.success).toBe(true);
  const status = async (id: number) => (await root.get(`/api/channel/${id}`)).body.data.status as number;

  beforeAll(async () => {
    up = await startFakeUpstream();
    mailbox = await startMailbox();
    gw = await startTestGateway(kind, { NOTIFY_LIMIT_COUNT: '3', NOTIFICATION_LIMIT_DURATION_MINUTE: '10' });
    root = await setupRoot(gw);
    for (const [key, value] of Object.entries({
      SMTPServer: '127.0.0.1',
      SMTPPort: String(mailbox.port),
      SMTPFrom: 'gw@example.com',
      SMTPSSLEnabled: 'false',
    }))
      await setOption(key, value);
    await setOption('AutomaticDisableChannelEnabled', true);
    await setOption('AutomaticEnableChannelEnabled', true);
    await setOption('ChannelDisableFailureCount', '2');
  });
  afterAll(async () => {
    await gw?.close();
    await up?.close();
    await mailbox?.close();
  });

  it('notifies root by email when a channel is disabled or enabled automatically and when a test of all ends, within the notice limit', async () => {
    expect((await root.put('/api/user/setting', { notify_type: 'email', notification_email: 'ops@example.com' })).body.success).toBe(true);
    const monitor = gw.gateway.app.get(ChannelMonitorService);
    const id = await create({ name: 'flaky-provider', key: 'sk-hc-flaky' });
    up.script({ key: 'sk-hc-flaky', status: 401, errorMessage: 'invalid api key' });
    expect((await monitor.runCycle()).disabled).toBe(1);
    expect(await status(id)).toBe(3);
    await waitFor('the disable notice', () => mailbox.mails.length === 1);
    expect(mailbox.mails[0]!.to).toEqual(['ops@example.com']);
    expect(mailbox.mails[0]!.body).toContain('flaky-provider');
    expect(mailbox.mails[0]!.body).toMatch(/disabled/);
    expect(mailbox.mails[0]!.body).toContain('invalid api key');
    expect(mailbox.mails[0]!.body).not.toContain('sk-hc-flaky');

    up.reset();
    expect((await monitor.runCycle()).enabled).toBe(1);
    expect(await status(id)).toBe(1);
    await waitFor('the enable notice', () => mailbox.mails.length === 2);
    expect(mailbox.mails[1]!.body).toMatch(/enabled again/);

    // A console test of all channels runs in the background and tells root when it ends.
    expect((await root.get('/api/channel/test')).body).toMatchObject({ success: true });
    await waitFor('the test-all notice', () => mailbox.mails.length === 3);
    expect(mailbox.mails[2]!.body).toMatch(/Channel test finished/);
    expect(mailbox.mails[2]!.body).toMatch(/1 channels tested: 0 failed/);

    // NOTIFY_LIMIT_COUNT = 3 per window: a fourth notice is dropped.
    const notices = gw.gateway.app.get(ChannelNotifyService);
    expect(await notices.send('one more', 'x')).toBe('none');
    expect(mailbox.mails).toHaveLength(3);
  });

  it('runs a health-check cycle on only one of the instances that share the database', async () => {
    await create({ key: 'sk-hc-slow' });
    up.script({ key: 'sk-hc-slow', delayMs: 400 });
    // Instances of one deployment share the Redis namespace when they have Redis, and always the database.
    const shared: Record<string, string> = gw.config.redis
      ? { REDIS_CONN_STRING: gw.config.redis.url, REDIS_KEY_PREFIX: `gwtest:hc:${kind}:${Date.now()}:` }
      : {};
    const a = await startTestGateway(kind, shared, gw.db);
    const b = await startTestGateway(kind, shared, gw.db);
    try {
      const monitorA = a.gateway.app.get(ChannelMonitorService);
      const monitorB = b.gateway.app.get(ChannelMonitorService);
      const [ra, rb] = await Promise.all([monitorA.runCycle(), monitorB.runCycle()]);
      expect([ra.skipped, rb.skipped].filter(Boolean)).toHaveLength(1);
      expect((ra.skipped ? rb : ra).tested).toBeGreaterThanOrEqual(2);
      // The lock was released: the next cycle runs.
      expect((await monitorB.runCycle()).skipped).toBeUndefined();

      if (!gw.config.redis) {
        // Without Redis the lease is a row: a live lease held elsewhere blocks, an expired one is taken over.
        const db = gw.gateway.app.get(DataSource);
        await db.query(
          `UPDATE job_locks SET holder = 'crashed-instance', expires_at = ${Date.now() + 60_000} WHERE name = 'channel-health-check'`,
        );
        expect(await monitorA.runCycle()).toMatchObject({ skipped: true, tested: 0 });
        await db.query(`UPDATE job_locks SET expires_at = ${Date.now() - 1} WHERE name = 'channel-health-check'`);
        expect((await monitorA.runCycle()).skipped).toBeUndefined();
        // The balance job (CHANNEL_UPDATE_FREQUENCY) has its own lease.
        await db.query(
          `INSERT INTO job_locks (name, holder, expires_at) VALUES ('channel-balance-update', 'crashed-instance', ${Date.now() + 60_000})`,
        );
        expect(await monitorA.runBalanceCycle()).toMatchObject({ skipped: true, updated: 0 });
        expect((await monitorA.runCycle()).skipped).toBeUndefined();
      }
    } finally {
      await b.close();
      await a.close();
    }
  });
});
