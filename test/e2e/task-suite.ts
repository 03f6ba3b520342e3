import { TaskPoller } from '@gw/task';
import type { TestGateway } from '../support/test-gateway.js';
import type { TestDbKind } from '../support/databases.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';

/** A gateway with one task channel in front of a fake provider, a token, and the calls a task suite makes. */
export interface TaskSuite {
  fx: RelayFixture;
  key: string;
  /** POST with a JSON body, GET without one; the JSON answer. */
  call(route: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** One polling pass of every task family, as the scheduler runs it (on another instance when given). */
  poll(gw?: TestGateway): ReturnType<TaskPoller['runOnce']>;
}

/**
 * Starts the gateway with polling left to the test (the scheduler's interval is an hour), prices the task
 * models (`ModelPrice` per call, `ModelRatio` for models settled by tokens), adds the channel and a token.
 */
export async function startTaskSuite(
  kind: TestDbKind,
  setup: { channel: Record<string, unknown>; prices?: Record<string, number>; ratios?: Record<string, number>; quota?: number },
): Promise<TaskSuite> {
  const fx = await startRelayFixture(kind, { TASK_POLL_INTERVAL: '3600' });
  if (setup.ratios) await fx.setOption('ModelRatio', setup.ratios);
  if (setup.prices) await fx.setOption('ModelPrice', setup.prices);
  await fx.channel(setup.channel);
  const key = (await fx.token({ remain_quota: setup.quota ?? 5_000_000 })).key;
  return {
    fx,
    key,
    call: (route, body) =>
      fetch(`${fx.gw.url}${route}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as any })),
    poll: (gw = fx.gw) => gw.gateway.app.get(TaskPoller).runOnce(),
  };
}
