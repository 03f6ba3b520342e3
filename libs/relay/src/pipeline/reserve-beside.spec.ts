import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { QuotaLedger } from '../billing/quota-ledger.js';
import { RelayCharges } from '../billing/relay-charges.js';
import { ReserveOverlap } from '../billing/reserve-overlap.js';
import { sendJson } from '../http/send-json.js';
import type { RelayCaller } from './ports.js';
import { RelayPipeline } from './relay-pipeline.js';
import type { ForwardInput, ForwardResult, UpstreamCall } from './upstream-call.js';

type Outcome = 'ok' | 'user_quota' | 'token_quota';

/** A promise settled from outside: the test decides when the database "commits". */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const RESERVE = 100;

function caller(userQuota: number): RelayCaller {
  return {
    userId: 7,
    username: 'u',
    role: 1,
    userGroup: 'default',
    tokenId: 9,
    tokenName: 't',
    requestedGroup: '',
    acceptUnsetModelRatioModel: false,
    recordIp: false,
    playground: false,
    balances: { user: userQuota, token: Number.POSITIVE_INFINITY },
  };
}

/**
 * The pipeline with fakes around it: a ledger whose reserve commits when the test says, and an upstream
 * call that answers at once, writing its answer only after the pipeline's hold lets it.
 */
function harness(userQuota: number) {
  const events: string[] = [];
  const commit = deferred<Outcome>();
  const ledger = {
    reserve: async () => {
      events.push('reserve sent');
      const outcome = await commit.promise;
      events.push(`reserve ${outcome}`);
      return outcome;
    },
    settle: async (_u: number, _t: number, _reserved: number, actual: number) => {
      events.push('settle');
      return { charged: actual, shortfall: 0 };
    },
    release: async () => void events.push('release'),
  };
  const upstream = {
    forward: async (input: ForwardInput): Promise<ForwardResult> => {
      events.push('upstream sent');
      let cancelled = false;
      input.signal.addEventListener('abort', () => {
        cancelled = true;
        events.push('upstream cancelled');
      });
      const result = { channel: { id: 1 }, usedChannels: [1], upstreamModel: 'm', localCount: false, frtMs: 0 } as unknown as ForwardResult;
      if (input.holdAnswer && !(await input.holdAnswer())) return { ...result, ok: false };
      if (cancelled) return { ...result, ok: false };
      events.push('answer written');
      sendJson(input.res, 200, { ok: true });
      return { ...result, ok: true, usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0 } };
    },
  };
  const auth = { authenticate: async () => caller(userQuota), applySpend: () => {}, markExhausted: async () => {} } as never;
  const overlap = new ReserveOverlap();
  const logs = { record: () => {} } as never;
  const pipeline = new RelayPipeline(
    auth,
    {
      resolve: () => ({ usePrice: false, modelPrice: -1, modelRatio: 1, completionRatio: 1, cacheRatio: 1, groupRatio: 1 }),
      preConsumeQuota: () => RESERVE,
      settleQuota: () => 40,
      countPromptTokens: () => 1,
      countTextTokens: () => 1,
    } as never,
    { check: async () => {}, recordSuccess: () => {} } as never,
    { usingGroup: () => 'default', route: () => ({ group: 'default', channel: { id: 1 } }) } as never,
    upstream as unknown as UpstreamCall,
    ledger as unknown as QuotaLedger,
    overlap,
    { get: () => false } as never,
    new RelayCharges(auth, overlap, { addUsedQuota: () => {} } as never, logs, { quotaChanged: () => {} } as never),
    logs,
    { match: () => undefined } as never,
  );
  return { events, commit, pipeline };
}

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** One chat request through the pipeline over real HTTP. */
async function request(pipeline: RelayPipeline): Promise<{ status: number; body: string }> {
  server = createServer((req, res) => {
    void pipeline.handle('chat', { req, res, path: '/v1/chat/completions', body: { model: 'm', messages: [] }, ip: '127.0.0.1' });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST' });
  return { status: res.status, body: await res.text() };
}

/** Waits until the fakes have reached `event` (the pipeline runs on its own from the HTTP request). */
async function reached(events: string[], event: string): Promise<void> {
  while (!events.includes(event)) await new Promise((resolve) => setImmediate(resolve));
}

describe('RelayPipeline, the reserve beside the upstream call', () => {
  it('a rich caller: the upstream call starts with the reserve, and the answer waits until the reserve committed', async () => {
    const { events, commit, pipeline } = harness(1_000_000);
    const answer = request(pipeline);
    await reached(events, 'upstream sent');
    expect(events).toEqual(['reserve sent', 'upstream sent']);
    commit.resolve('ok');
    expect(await answer).toEqual({ status: 200, body: '{"ok":true}' });
    await reached(events, 'settle');
    expect(events).toEqual(['reserve sent', 'upstream sent', 'reserve ok', 'answer written', 'settle']);
  });

  it('a refused reserve cancels the upstream call and is answered 403 as before, nothing else written', async () => {
    for (const [outcome, code] of [
      ['user_quota', 'insufficient_user_quota'],
      ['token_quota', 'pre_consume_token_quota_failed'],
    ] as const) {
      const { events, commit, pipeline } = harness(1_000_000);
      const answer = request(pipeline);
      await reached(events, 'upstream sent');
      commit.resolve(outcome);
      const { status, body } = await answer;
      expect(status).toBe(403);
      expect(JSON.parse(body).error.code).toBe(code);
      expect(events).toEqual(['reserve sent', 'upstream sent', `reserve ${outcome}`, 'upstream cancelled']);
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    }
  });

  it('near the balance (less than 4 × the reservation): the reserve commits before the upstream call, as before', async () => {
    const { events, commit, pipeline } = harness(3 * RESERVE);
    const answer = request(pipeline);
    await reached(events, 'reserve sent');
    // An overlapped call starts in the same turn as its reserve: it would be here already.
    expect(events).toEqual(['reserve sent']);
    commit.resolve('ok');
    expect((await answer).status).toBe(200);
    expect(events.slice(0, 4)).toEqual(['reserve sent', 'reserve ok', 'upstream sent', 'answer written']);
  });
});
