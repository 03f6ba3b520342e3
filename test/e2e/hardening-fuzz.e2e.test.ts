import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import type { ApiClient } from '../support/api-client.js';
import { type TestDbKind, testDatabases } from '../support/databases.js';
import { bodyFromContract, encoding, pathParam, query, relayBody } from '../support/fuzz-arbitraries.js';
import { fillPath, type RouteEntry, routeTable } from '../support/route-table.js';
import { isContractual5xx } from '../support/server-errors.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { type AccessLevel, ROUTE_ACCESS } from './authz-expectations.js';

const MODEL = 'fuzz-model';
/**
 * The property runs of all databases together stay under this (the suite's budget is 60 s, set-up
 * included): SQLite gets half, MariaDB and PostgreSQL (when the CI provides them) share the rest, where
 * type and range errors of a real SQL server (an id past INT, a string where a number goes) show up.
 */
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 30_000);
const DATABASES = testDatabases();
const budgetOf = (kind: TestDbKind) =>
  DATABASES.length === 1 ? BUDGET_MS : kind === 'sqlite' ? BUDGET_MS / 2 : BUDGET_MS / 2 / (DATABASES.length - 1);
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 20);
/**
 * A fixed seed by default, so a run is repeatable and `npm test` never goes red on a case nobody has seen;
 * FUZZ_SEED=random explores new cases (keep it running locally), FUZZ_SEED=<n> replays a failure (the seed is
 * in every failure message).
 */
const SEED = process.env.FUZZ_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED ?? 20_261_125);

/** Stack frames, file paths and SQL: none may reach a client, whatever it sent. */
const INTERNALS =
  /\n\s+at \S|\bat [\w$.<>]+ \([^)]*:\d+:\d+\)|node_modules|QueryFailedError|SQLITE_[A-Z]+|\bER_[A-Z_]{4,}|syntax error at or near|\bSELECT\s[\s\S]{1,200}\bFROM\s|\bINSERT INTO\b|\bUPDATE\s+\w+\s+SET\b/i;
/** Answers that are not JSON by design, and only on success: SSE streams, speech, images, video, metrics. */
const NON_JSON_SUCCESS = /^(text\/event-stream|audio\/|image\/|video\/|application\/octet-stream|text\/plain)/;
/** Operations routes speak their scrapers' formats (Prometheus text, probe text), errors included. */
const OPS_ROUTES = new Set(['GET /metrics', 'GET /healthz', 'GET /readyz']);
/** Calls that end the fuzzing identity's session or account: made last. */
const ENDS_SESSION = new Set(['GET /api/user/logout', 'DELETE /api/user/self', 'PUT /api/user/self']);

interface Sent {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** What every answer must be: below 500 (or a contractual 5xx), JSON unless a success that streams, free of internals. */
function violation(answer: Answer, route: RouteEntry): string | undefined {
  let parsed: unknown;
  const isJson = answer.contentType.startsWith('application/json');
  if (isJson) {
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      return 'a JSON content type over a body that is not JSON';
    }
  }
  if (answer.status >= 500 && !isContractual5xx(answer.status, parsed)) return `status ${answer.status}`;
  if (!isJson && !OPS_ROUTES.has(route.key) && !(answer.status < 400 && NON_JSON_SUCCESS.test(answer.contentType))) {
    return `a ${answer.status} answer in ${answer.contentType || 'no content type'}`;
  }
  const internal = INTERNALS.exec(answer.text);
  if (internal) return `internal detail in the answer: ${internal[0].slice(0, 60)}`;
  return undefined;
}

describe.each(DATABASES)('hardening: property-based fuzz of every route of the route table (fast-check) on %s', (kind) => {
  const budget = budgetOf(kind);
  let gw: TestGateway;
  let up: FakeUpstream;
  let routes: RouteEntry[];
  let clients: Record<AccessLevel, { client?: ApiClient; key?: string }>;
  let requests = 0;
  const failures: string[] = [];
  const statuses = new Map<number, number>();

  async function send(route: RouteEntry, sent: Sent): Promise<Answer> {
    const level = ROUTE_ACCESS[route.key] ?? 'public';
    const { client, key } = clients[level];
    const headers: Record<string, string> = {};
    if (sent.contentType) headers['content-type'] = sent.contentType;
    if (key) headers.authorization = `Bearer ${key}`;
    if (client?.cookie) headers.cookie = client.cookie;
    if (client?.userId !== undefined) headers['New-Api-User'] = String(client.userId);
    requests++;
    const res = await fetch(gw.url + sent.path, {
      method: sent.method,
      headers,
      body: sent.body,
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text };
  }

  /** Requests for one route: its path with fuzzed parameters, a fuzzed query and a body from its contract. */
  function requestsFor(route: RouteEntry): fc.Arbitrary<Sent> {
    const params = [...route.path.matchAll(/(?<=\/):(\w+)/g)].map((m) => m[1]!);
    const hasBody = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
    const body = route.bodySchema
      ? bodyFromContract(route.bodySchema)
      : route.relayEntry || route.path.startsWith('/v1')
        ? relayBody(MODEL)
        : relayBody(MODEL);
    return fc
      .record({
        values: fc.tuple(...params.map(() => pathParam)),
        query,
        body: hasBody ? body : fc.constant(undefined),
        encoding: hasBody ? encoding : fc.constant('none'),
      })
      .map(({ values, query: q, body: value, encoding: how }) => {
        const byName = new Map(params.map((name, i) => [name, name === 'model' ? MODEL : String(values[i])]));
        const path = fillPath(route.path, (name) => byName.get(name) ?? '1') + (q ? `?${q}` : '');
        const json = JSON.stringify(value ?? {});
        switch (how) {
          case 'json':
            return { method: route.method, path, body: json, contentType: 'application/json' };
          case 'truncated':
            return { method: route.method, path, body: json.slice(0, Math.max(1, json.length >> 1)), contentType: 'application/json' };
          case 'text':
            return { method: route.method, path, body: json, contentType: 'text/plain' };
          case 'form':
            return {
              method: route.method,
              path,
              body: `a=${encodeURIComponent(json)}&a=2`,
              contentType: 'application/x-www-form-urlencoded',
            };
          default:
            return { method: route.method, path };
        }
      });
  }

  beforeAll(async () => {
    up = await startFakeUpstream();
    gw = await startTestGateway(kind);
    const root = await setupRoot(gw);
    expect((await root.put('/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [MODEL]: 1 }) })).body.success).toBe(true);
    const channel = await root.post('/api/channel/', {
      mode: 'single',
      channel: { type: 1, name: 'fuzz', key: 'sk-fuzz-upstream-key', models: MODEL, group: 'default', base_url: up.url },
    });
    expect(channel.body.success, channel.text).toBe(true);
    expect((await root.post('/api/user/', { username: 'fuzzer', password: 'fuzzer-pass-1' })).body.success).toBe(true);
    const user = gw.client();
    expect((await user.login('fuzzer', 'fuzzer-pass-1')).body.success).toBe(true);
    expect((await user.post('/api/token/', { name: 'fuzz', remain_quota: 0, unlimited_quota: true, expired_time: -1 })).body.success).toBe(
      true,
    );
    const tokenId = (await user.get('/api/token/search?keyword=fuzz')).body.data.items[0].id;
    const key = `sk-${(await user.post(`/api/token/${tokenId}/key`)).body.data.key.replace(/^sk-/, '')}`;
    clients = { public: {}, user: { client: user }, admin: { client: root }, root: { client: root }, token: { key } };
    routes = routeTable(gw.gateway.app);
  }, 60_000);

  afterAll(async () => {
    await gw?.close();
    await up?.close();
  });

  it(
    'answers every generated request below 500, in JSON, without stack traces or SQL',
    async () => {
      // Key routes first, then the user's, then the administrators' (whose writes may disable the user), session enders last.
      const rank = (r: RouteEntry) => {
        if (ENDS_SESSION.has(r.key)) return 4;
        return { token: 0, public: 1, user: 2, admin: 3, root: 3 }[ROUTE_ACCESS[r.key] ?? 'public'];
      };
      // On MariaDB and PostgreSQL the console routes (where ids and filters reach SQL) get the whole share.
      const fuzzed = kind === 'sqlite' ? routes : routes.filter((r) => r.path.startsWith('/api/'));
      const ordered = [...fuzzed].sort((a, b) => rank(a) - rank(b));
      const deadline = Date.now() + budget;
      const rssBefore = process.memoryUsage().rss;
      for (const [index, route] of ordered.entries()) {
        // Each route gets an equal share of what is left, so the run ends in time however slow a route is.
        const share = Math.max(30, (deadline - Date.now()) / (ordered.length - index));
        let found = '';
        try {
          await fc.assert(
            fc.asyncProperty(requestsFor(route), async (sent) => {
              const answer = await send(route, sent);
              const problem = violation(answer, route);
              if (problem) {
                // Kept here too: a run cut short by the time limit does not report its failure.
                found ||= `${problem}: ${answer.text.slice(0, 160)} ← ${JSON.stringify(sent).slice(0, 300)}`;
                throw new Error(found);
              }
            }),
            {
              numRuns: RUNS_PER_ROUTE,
              seed: SEED + index,
              endOnFailure: true,
              interruptAfterTimeLimit: share,
              markInterruptAsFailure: false,
            },
          );
        } catch (error) {
          // A route slower than its share of the budget (bcrypt on login) may run out of time before any run: not a finding.
          if (!found && !/interrupted after/.test((error as Error).message)) found = (error as Error).message.slice(0, 300);
        }
        if (found) failures.push(`${route.key}: ${found} (seed ${SEED + index})`);
      }
      // The process is the gateway's too: it must not have grown without bound.
      const grown = process.memoryUsage().rss - rssBefore;
      console.log(
        `fuzz: ${requests} requests over ${ordered.length} routes on ${kind} in a ${budget} ms budget (seed ${SEED}); statuses ${JSON.stringify(Object.fromEntries(statuses))}; rss +${Math.round(grown / 2 ** 20)} MB`,
      );
      expect(failures).toEqual([]);
      expect(requests).toBeGreaterThan(ordered.length);
      expect(grown).toBeLessThan(300 * 2 ** 20);
    },
    BUDGET_MS + 60_000,
  );

  // Bodies are read before any database work: once, on SQLite, is enough.
  it.runIf(kind === 'sqlite')(
    'refuses hostile bodies on every route that takes one: deep nesting, broken JSON, prototype keys',
    async () => {
      const deep = `{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
      const problems: string[] = [];
      for (const route of routes) {
        if (route.method === 'GET' || route.method === 'DELETE' || ENDS_SESSION.has(route.key)) continue;
        const path = fillPath(route.path, (name) => (name === 'model' ? MODEL : '1'));
        for (const [what, body] of [
          ['nesting 10,000 deep', deep],
          ['broken JSON', '{"model": "x", '],
          ['a __proto__ key', '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"model":"x"}'],
        ] as const) {
          const answer = await send(route, { method: route.method, path, body, contentType: 'application/json' });
          const problem =
            violation(answer, route) ??
            (what !== 'a __proto__ key' && (answer.status < 400 || answer.status >= 500) ? `accepted with ${answer.status}` : undefined);
          if (problem) problems.push(`${route.key} with ${what}: ${problem} ${answer.text.slice(0, 120)}`);
        }
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(problems).toEqual([]);
    },
    60_000,
  );
});
