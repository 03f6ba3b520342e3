import { randomBytes } from 'node:crypto';
import { loadConfig, type AppConfig } from '@gw/core';
import { startGateway, type Gateway } from '../../apps/gateway/src/bootstrap.js';
import { ApiClient } from './api-client.js';
import { createTestDatabase, type TestDatabase, type TestDbKind } from './databases.js';
import { testLogOptions } from './test-logs.js';

export interface TestGateway {
  gateway: Gateway;
  config: AppConfig;
  db: TestDatabase;
  url: string;
  /** A new anonymous client (its own cookie jar). */
  client(): ApiClient;
  close(): Promise<void>;
}

/** Limits high enough that a suite never trips them by accident; suites that test limits lower them. */
const TEST_ENV: Record<string, string> = {
  PORT: '0',
  HOST: '127.0.0.1',
  SESSION_SECRET: 'e2e-session-secret-0123456789abcdef',
  GLOBAL_API_RATE_LIMIT: '1000000',
  CRITICAL_RATE_LIMIT: '1000000',
  SEARCH_RATE_LIMIT: '1000000',
  SYNC_FREQUENCY: '60',
  // bcrypt's minimum cost: suites create and log in thousands of users, and cost 10 spends ~100 ms of CPU on
  // each. The default cost is covered by password.spec.
  PASSWORD_HASH_COST: '4',
};

/** Starts the real gateway (same bootstrap as main.ts) on a fresh database and a free port. */
export async function startTestGateway(
  kind: TestDbKind,
  env: Record<string, string> = {},
  shared?: TestDatabase,
  options: Parameters<typeof startGateway>[1] = testLogOptions(),
): Promise<TestGateway> {
  const db = shared ?? (await createTestDatabase(kind));
  // MariaDB runs with Redis when CI provides one, so the shared-cache paths are exercised too.
  // Each gateway gets its own key prefix (unless the test shares one between instances) so suites running
  // in parallel never see each other's counters or invalidations.
  const redis =
    kind === 'mysql' && process.env.TEST_REDIS_URL
      ? { REDIS_CONN_STRING: process.env.TEST_REDIS_URL, REDIS_KEY_PREFIX: `gwtest:${randomBytes(4).toString('hex')}:` }
      : {};
  const config = loadConfig({ ...TEST_ENV, ...redis, ...db.env, ...env });
  const gateway = await startGateway(config, options);
  return {
    gateway,
    config,
    db,
    url: gateway.url,
    client: () => new ApiClient(gateway.url),
    close: async () => {
      await gateway.close();
      if (!shared) await db.drop();
    },
  };
}

export const ROOT = { username: 'root', password: 'root-pass-123' };

/** Completes the setup wizard and returns a client logged in as root. */
export async function setupRoot(gw: TestGateway): Promise<ApiClient> {
  const anon = gw.client();
  const setup = await anon.post('/api/setup', {
    ...ROOT,
    confirmPassword: ROOT.password,
    SelfUseModeEnabled: false,
    DemoSiteEnabled: false,
  });
  if (!setup.body?.success) throw new Error(`setup failed: ${setup.text}`);
  const root = gw.client();
  const login = await root.login(ROOT.username, ROOT.password);
  if (!login.body?.success) throw new Error(`root login failed: ${login.text}`);
  return root;
}
