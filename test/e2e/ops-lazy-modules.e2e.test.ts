import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import type { ApiClient } from '../support/api-client.js';
import { ensureServerBuilt } from '../support/built-server.js';
import { readyToRelay, startGatewayChild, type GatewayChild } from '../support/gateway-child.js';
import { waitFor } from './relay-fixture.js';

const MODEL = 'lazy-modules';
const PRELOAD = ['--import', './test/support/report-loaded-packages.mjs'];
/**
 * Packages only some installations use, each loaded on first use (README, "Memory"): MySQL and Redis clients,
 * undici's pool, the Prometheus client, SMTP, WebAuthn's ASN.1 stack (tsyringe, a CommonJS dependency of
 * the ES-module @simplewebauthn/server), and the WebSocket server and client of the Realtime relay (ws).
 */
const ON_FIRST_USE = ['mysql2', 'ioredis', 'undici', 'prom-client', 'nodemailer', 'tsyringe', 'ws'];

async function loadedPackages(gw: GatewayChild): Promise<string[]> {
  const before = gw.output().length;
  gw.child.kill('SIGUSR2');
  const line = await waitFor(
    async () => /loaded-packages: (\[.*\])\n/.exec(gw.output().slice(before))?.[1],
    'the list of loaded packages',
    10_000,
  );
  return JSON.parse(line) as string[];
}

describe('a default gateway (SQLite, no Redis, metrics off) loads only what it uses', () => {
  let up: FakeUpstream;
  let gw: GatewayChild;
  let root: ApiClient;

  beforeAll(async () => {
    ensureServerBuilt();
    up = await startFakeUpstream();
    gw = await startGatewayChild({}, { nodeArgs: PRELOAD });
    root = await gw.setupRoot();
  }, 180_000);

  afterAll(async () => {
    if (gw && gw.child.exitCode === null) gw.child.kill('SIGKILL');
    await up?.close();
  });

  it('after start, console calls and relayed calls, none of the packages loaded on first use is loaded', async () => {
    const key = await readyToRelay(root, {
      name: 'lazy',
      models: [MODEL],
      upstreamUrl: up.url,
      options: { ModelPrice: { [MODEL]: 0.001 } },
    });
    for (const stream of [false, true]) {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, stream, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(200);
      await res.text();
    }
    expect((await root.get('/api/log/?p=1')).body.success).toBe(true);

    const loaded = await loadedPackages(gw);
    // The report sees CommonJS packages at all (the SQLite driver is one).
    expect(loaded).toContain('better-sqlite3');
    expect(loaded.filter((name) => ON_FIRST_USE.includes(name))).toEqual([]);
  });

  it('a feature that needs one loads it: metrics on load the Prometheus client', async () => {
    const metered = await startGatewayChild({ METRICS_ENABLED: 'true' }, { nodeArgs: PRELOAD });
    try {
      const scrape = await fetch(`${metered.url}/metrics`);
      expect(scrape.status).toBe(200);
      expect(await scrape.text()).toContain('gateway_http_requests_total');
      expect(await loadedPackages(metered)).toContain('prom-client');
    } finally {
      metered.child.kill('SIGKILL');
    }
  }, 120_000);
});
