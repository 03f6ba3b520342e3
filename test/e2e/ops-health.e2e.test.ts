import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReadinessService } from '@gw/ops';
import { createTestDatabase, testDatabases, type TestDatabase } from '../support/databases.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from './relay-fixture.js';

async function readyz(gw: TestGateway) {
  const res = await fetch(`${gw.url}/readyz`);
  return {
    status: res.status,
    body: (await res.json()) as { status: string; ready: boolean; phase: string; checks: Record<string, string> },
  };
}

describe.each(testDatabases())('health endpoints on %s', (kind) => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway(kind);
  });
  afterAll(() => gw?.close());

  it('is alive and ready once migrated, outside the API envelope and rate limit', async () => {
    const live = await fetch(`${gw.url}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await readyz(gw);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', ready: true, phase: 'ready', checks: { database: 'ok' } });
  });

  it('is not ready while draining (a load balancer stops sending before shutdown)', async () => {
    const readiness = gw.gateway.app.get(ReadinessService);
    readiness.markDraining();
    try {
      const ready = await readyz(gw);
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ ready: false, phase: 'draining' });
      expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    } finally {
      (readiness as unknown as { phase: string }).phase = 'ready';
    }
  });

  it('answers /api/status/test for administrators only, as new-api does', async () => {
    const anonymous = await gw.client().get('/api/status/test');
    expect(anonymous.status).toBe(401);
    const root = await setupRoot(gw);
    const res = await root.get('/api/status/test');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Server is running', http_stats: { active_connections: expect.any(Number) } });
    expect(res.body.http_stats.active_connections).toBeGreaterThanOrEqual(1);
  });
});

describe('/api/uptime/status', () => {
  let gw: TestGateway;
  let kuma: Server;

  beforeAll(async () => {
    // A stand-in for an Uptime Kuma instance (loopback, so the gateway is told to allow private addresses below).
    kuma = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/status-page/main') {
        res.end(
          JSON.stringify({
            publicGroupList: [
              {
                id: 1,
                name: 'APIs',
                monitorList: [
                  { id: 7, name: 'OpenAI' },
                  { id: 8, name: 'Claude' },
                ],
              },
            ],
          }),
        );
      } else if (req.url === '/api/status-page/heartbeat/main') {
        res.end(JSON.stringify({ heartbeatList: { 7: [{ status: 1 }], 8: [{ status: 0 }] }, uptimeList: { '7_24': 0.999, '8_24': 0.5 } }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((resolve) => kuma.listen(0, '127.0.0.1', resolve));
    gw = await startTestGateway('sqlite');
  });
  afterAll(async () => {
    await gw?.close();
    await new Promise((resolve) => kuma.close(resolve));
  });

  it('is an empty list until groups are configured', async () => {
    const res = await gw.client().get('/api/uptime/status');
    expect(res.body).toEqual({ success: true, message: '', data: [] });
  });

  it('gives each group, and an empty one for a status page that cannot be read (private address refused)', async () => {
    const root = await setupRoot(gw);
    const port = (kuma.address() as { port: number }).port;
    const groups = [{ categoryName: 'Providers', url: `http://127.0.0.1:${port}`, slug: 'main' }];
    const saved = await root.put('/api/option/', { key: 'console_setting.uptime_kuma_groups', value: JSON.stringify(groups) });
    expect(saved.body.success, saved.text).toBe(true);
    const res = await gw.client().get('/api/uptime/status');
    // The outbound client refuses loopback targets (SSRF rule): the group is listed with no monitors.
    expect(res.body).toEqual({ success: true, message: '', data: [{ categoryName: 'Providers', monitors: [] }] });

    const bad = await root.put('/api/option/', {
      key: 'console_setting.uptime_kuma_groups',
      value: '[{"categoryName":"x","url":"ftp://a","slug":"s"}]',
    });
    expect(bad.body.success).toBe(false);
  });
});

const networked = testDatabases().filter((kind) => kind !== 'sqlite');

describe.skipIf(networked.length === 0).each(networked)('readiness when the database goes away on %s', (kind) => {
  let gw: TestGateway;
  let proxy: TcpProxy;

  beforeAll(async () => {
    const db = await createTestDatabase(kind);
    const dsn = new URL(db.env.SQL_DSN!);
    proxy = await startTcpProxy(dsn.hostname, Number(dsn.port || (kind === 'mysql' ? 3306 : 5432)));
    dsn.hostname = '127.0.0.1';
    dsn.port = String(proxy.port);
    gw = await startTestGateway(kind, { SQL_DSN: dsn.toString() }, db);
  });
  afterAll(async () => {
    await proxy?.up().catch(() => undefined);
    await gw?.close();
    await gw?.db.drop();
    await proxy?.close();
  });

  it('is false while the database is unreachable and true again after it comes back', async () => {
    expect((await readyz(gw)).status).toBe(200);
    await proxy.down();
    const down = await waitFor(
      async () => {
        const r = await readyz(gw);
        return r.status === 503 ? r : undefined;
      },
      'readiness to fail',
      10_000,
    );
    expect(down.body.ready).toBe(false);
    expect(down.body.checks.database).toMatch(/^failed/);
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);

    await proxy.up();
    const up = await waitFor(
      async () => {
        const r = await readyz(gw);
        return r.status === 200 ? r : undefined;
      },
      'readiness to come back',
      15_000,
    );
    expect(up.body).toMatchObject({ ready: true, checks: { database: 'ok' } });
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createTcpServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** Takes the migration lock the gateway waits on (MySQL GET_LOCK, PostgreSQL advisory lock). */
async function holdMigrationLock(db: TestDatabase): Promise<() => Promise<void>> {
  const dsn = db.env.SQL_DSN!;
  if (db.kind === 'mysql') {
    const url = new URL(dsn);
    const conn = await mysql.createConnection({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    });
    await conn.query("SELECT GET_LOCK('gateway_migrations', 10)");
    return async () => {
      await conn.query("SELECT RELEASE_LOCK('gateway_migrations')");
      await conn.end();
    };
  }
  const client = new pg.Client({ connectionString: dsn });
  await client.connect();
  await client.query('SELECT pg_advisory_lock(724301)');
  return async () => {
    await client.query('SELECT pg_advisory_unlock(724301)');
    await client.end();
  };
}

describe.skipIf(networked.length === 0).each(networked)('readiness while migrations run on %s', (kind) => {
  it('answers alive but not ready until the migrations are done, then ready on the same port', async () => {
    const db = await createTestDatabase(kind);
    const release = await holdMigrationLock(db);
    const port = await freePort();
    const starting = startTestGateway(kind, { PORT: String(port) }, db);
    let gw: TestGateway | undefined;
    try {
      const probe = await waitFor(
        async () => {
          const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
          return res ? { status: res.status, body: await res.json() } : undefined;
        },
        'the port to answer during migrations',
        10_000,
      );
      expect(probe).toEqual({
        status: 503,
        body: { status: 'not ready', ready: false, phase: 'starting', checks: { database: 'migrating' } },
      });
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      const api = await fetch(`http://127.0.0.1:${port}/api/status`);
      expect(api.status).toBe(503);
      expect(api.headers.get('retry-after')).toBe('5');
    } finally {
      await release();
      gw = await starting;
    }
    try {
      expect(gw.gateway.port).toBe(port);
      expect((await readyz(gw)).status).toBe(200);
    } finally {
      await gw.close();
      await db.drop();
    }
  });
});
