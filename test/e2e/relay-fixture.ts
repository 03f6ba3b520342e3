import OpenAI from 'openai';
import { DataSource } from 'typeorm';
import { expect } from 'vitest';
import { LOG_DATA_SOURCE } from '@gw/database';
import { LogService } from '@gw/log';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import type { ApiClient } from '../support/api-client.js';
import type { TestDbKind } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

/** Models with custom names, so no built-in completion ratio applies: the expected charges are exact. */
export const CHAT = 'relay-chat';
export const EMBED = 'relay-embed';
export const INSTRUCT = 'relay-instruct';
export const RATIOS = { [CHAT]: 2, [EMBED]: 0.5, [INSTRUCT]: 1 };
export const COMPLETION_RATIOS = { [CHAT]: 3, [INSTRUCT]: 2 };

/** new-api's ratio formula with the fake upstream's default usage (10 prompt, 20 completion). */
export function ratioQuota(model: keyof typeof RATIOS, prompt = 10, completion = 20, groupRatio = 1): number {
  const completionRatio = (COMPLETION_RATIOS as Record<string, number>)[model] ?? 1;
  return Math.round((prompt + completion * completionRatio) * RATIOS[model] * groupRatio);
}

export interface RelayFixture {
  gw: TestGateway;
  up: FakeUpstream;
  root: ApiClient;
  ds: DataSource;
  user: { client: ApiClient; id: number };
  close(): Promise<void>;
  setOption(key: string, value: unknown): Promise<void>;
  channel(fields?: Record<string, unknown>): Promise<number>;
  token(body?: Record<string, unknown>, owner?: ApiClient): Promise<{ id: number; key: string }>;
  openai(key: string): OpenAI;
  quota(userId: number): Promise<number>;
  setQuota(userId: number, quota: number): Promise<void>;
  tokenRow(id: number): Promise<{ remainQuota: number; usedQuota: number }>;
  userRow(id: number): Promise<{ quota: number; usedQuota: number; requestCount: number }>;
  /** Flushes the log buffer and returns the consume rows of a request id (or all of a user). */
  logs(where: Record<string, unknown>): Promise<any[]>;
  /** Waits until the request was settled (its log row exists: settle runs after the answer ends). */
  settled(requestId: string | null): Promise<any>;
  /** Waits until `count` rows match. */
  logCount(where: Record<string, unknown>, count: number): Promise<any[]>;
}

export async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let counter = 0;

export async function startRelayFixture(kind: TestDbKind, env: Record<string, string> = {}): Promise<RelayFixture> {
  const up = await startFakeUpstream();
  const gw = await startTestGateway(kind, env);
  const root = await setupRoot(gw);
  const ds = gw.gateway.app.get(DataSource);
  const setOption = async (key: string, value: unknown) => {
    const res = await root.put('/api/option/', { key, value: typeof value === 'string' ? value : JSON.stringify(value) });
    expect(res.body.success, res.text).toBe(true);
  };
  await setOption('ModelRatio', RATIOS);
  await setOption('CompletionRatio', COMPLETION_RATIOS);

  const username = `relay${++counter}`;
  expect((await root.post('/api/user/', { username, password: 'password-123' })).body.success).toBe(true);
  const client = gw.client();
  const login = await client.login(username, 'password-123');
  expect(login.body.success, login.text).toBe(true);
  const user = { client, id: login.body.data.id as number };

  const fixture: RelayFixture = {
    gw,
    up,
    root,
    ds,
    user,
    close: async () => {
      await gw.close();
      await up.close();
    },
    setOption,
    async channel(fields = {}) {
      const n = ++counter;
      const res = await root.post('/api/channel/', {
        mode: 'single',
        channel: {
          type: 1,
          name: `relay-ch-${n}`,
          key: `sk-up-${n}`,
          models: [CHAT, EMBED, INSTRUCT].join(','),
          group: 'default',
          base_url: up.url,
          ...fields,
        },
      });
      expect(res.body.success, res.text).toBe(true);
      return res.body.data.ids[0] as number;
    },
    async token(body = {}, owner = client) {
      const name = `t${++counter}`;
      const created = await owner.post('/api/token/', { name, remain_quota: 500000, expired_time: -1, ...body });
      expect(created.body.success, created.text).toBe(true);
      const items = (await owner.get(`/api/token/search?keyword=${name}`)).body.data.items as { id: number; name: string }[];
      const id = items.find((t) => t.name === name)!.id;
      return { id, key: (await owner.post(`/api/token/${id}/key`)).body.data.key as string };
    },
    openai: (key) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }),
    quota: async (id) => (await fixture.userRow(id)).quota,
    async setQuota(id, quota) {
      await ds.getRepository('users').update(id, { quota });
    },
    async tokenRow(id) {
      const row = (await ds.getRepository('tokens').findOneBy({ id })) as any;
      return { remainQuota: Number(row.remainQuota), usedQuota: Number(row.usedQuota) };
    },
    async userRow(id) {
      const row = (await ds.getRepository('users').findOneBy({ id })) as any;
      return { quota: Number(row.quota), usedQuota: Number(row.usedQuota), requestCount: Number(row.requestCount) };
    },
    async logs(where) {
      await gw.gateway.app.get(LogService).flush();
      // The logs may live on their own database (LOG_SQL_DSN).
      return gw.gateway.app
        .get<DataSource>(LOG_DATA_SOURCE)
        .getRepository('logs')
        .find({ where, order: { id: 'ASC' } as any });
    },
    settled: (requestId) => waitFor(async () => (await fixture.logs({ requestId: requestId! }))[0], `the log of ${requestId}`),
    logCount: (where, count) =>
      waitFor(async () => {
        const rows = await fixture.logs(where);
        return rows.length >= count ? rows : undefined;
      }, `${count} log rows`),
  };
  await fixture.setQuota(user.id, 10_000_000);
  return fixture;
}
