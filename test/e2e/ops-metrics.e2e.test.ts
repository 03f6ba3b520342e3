import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { startTestGateway } from '../support/test-gateway.js';
import { CHAT, ratioQuota, startRelayFixture, type RelayFixture } from './relay-fixture.js';

const TOKEN = 'metrics-token-0123456789';

interface Family {
  name: string;
  type: string;
  metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string }[];
}

type Scrape = Map<string, Family> & { text: string };

/** Fetches and parses the exposition (the parser throws on any malformed line). */
async function scrape(url: string): Promise<Scrape> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const families = parsePrometheusTextFormat(text) as Family[];
  return Object.assign(new Map(families.map((f) => [f.name, f])), { text });
}

function sample(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  const found = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return found ? Number(found.value) : 0;
}

/**
 * A histogram's observation count for one label set. The parser merges labelled histograms into one
 * sample (it drops their labels), so the `_count` series is read from the checked text instead.
 */
function histogramCount(scraped: Scrape, name: string, labels: Record<string, string>): number {
  for (const line of scraped.text.split('\n')) {
    const match = /^(\w+)\{(.*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== `${name}_count`) continue;
    const found = Object.fromEntries([...match[2]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return 0;
}

describe.each(testDatabases())('metrics on %s', (kind) => {
  let f: RelayFixture;
  let channelId: number;
  let key: string;

  beforeAll(async () => {
    f = await startRelayFixture(kind, { METRICS_TOKEN: TOKEN });
    channelId = await f.channel();
    key = (await f.token()).key;
  });
  afterAll(() => f?.close());

  it('asks for the bearer token and rejects a wrong one', async () => {
    expect((await fetch(`${f.gw.url}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${f.gw.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('parses as Prometheus text and counts one relayed request exactly once', async () => {
    const before = await scrape(f.gw.url);
    const labels = { kind: 'chat', model: CHAT, channel: String(channelId), group: 'default', status: '200' };
    const requestsBefore = sample(before, 'gateway_relay_requests_total', labels);

    const answer = await f
      .openai(key)
      .chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    await f.settled(answer.response.headers.get('x-oneapi-request-id'));

    const after = await scrape(f.gw.url);
    expect(sample(after, 'gateway_relay_requests_total', labels) - requestsBefore).toBe(1);
    expect(
      sample(after, 'gateway_relay_tokens_total', { model: CHAT, type: 'prompt' }) -
        sample(before, 'gateway_relay_tokens_total', { model: CHAT, type: 'prompt' }),
    ).toBe(10);
    expect(
      sample(after, 'gateway_relay_tokens_total', { model: CHAT, type: 'completion' }) -
        sample(before, 'gateway_relay_tokens_total', { model: CHAT, type: 'completion' }),
    ).toBe(20);
    expect(sample(after, 'gateway_relay_quota_total', { model: CHAT }) - sample(before, 'gateway_relay_quota_total', { model: CHAT })).toBe(
      ratioQuota(CHAT),
    );
    expect(
      histogramCount(after, 'gateway_relay_overhead_seconds', { kind: 'chat' }) -
        histogramCount(before, 'gateway_relay_overhead_seconds', { kind: 'chat' }),
    ).toBe(1);
    expect(after.get('gateway_relay_overhead_seconds')?.type).toBe('HISTOGRAM');
    // Scraping twice does not count the request again.
    const again = await scrape(f.gw.url);
    expect(sample(again, 'gateway_relay_requests_total', labels)).toBe(sample(after, 'gateway_relay_requests_total', labels));
  });

  it('times the first token of a stream and counts a rejected key without a model label', async () => {
    const before = await scrape(f.gw.url);
    const stream = await f.openai(key).chat.completions.create({ model: CHAT, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    for await (const _chunk of stream) void _chunk;
    await expect(
      f.openai('sk-not-a-real-key').chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toThrow();
    // The relay reports a call when it has settled and logged it, which may be just after the client saw the end.
    await vi.waitFor(
      async () => {
        const after = await scrape(f.gw.url);
        expect(
          histogramCount(after, 'gateway_relay_first_token_seconds', { model: CHAT }) -
            histogramCount(before, 'gateway_relay_first_token_seconds', { model: CHAT }),
        ).toBe(1);
        expect(
          sample(after, 'gateway_relay_requests_total', { kind: 'chat', model: '', channel: '', status: '401' }) -
            sample(before, 'gateway_relay_requests_total', { kind: 'chat', model: '', channel: '', status: '401' }),
        ).toBe(1);
      },
      { timeout: 10_000, interval: 50 },
    );
  });

  it('exports route patterns, channel health, the log queue, the pool and process metrics, with no user or key label', async () => {
    await f.user.client.get('/api/user/self');
    const families = await scrape(f.gw.url);
    expect(
      sample(families, 'gateway_http_requests_total', { route: '/api/user/self', method: 'GET', status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(families, 'gateway_channel_enabled', { channel: String(channelId) })).toBe(1);
    expect(families.has('gateway_channel_response_time_seconds')).toBe(true);
    expect(families.has('gateway_log_batch_pending_rows')).toBe(true);
    expect(sample(families, 'gateway_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(families.has('process_cpu_seconds_total')).toBe(true);
    expect(families.has('nodejs_eventloop_lag_seconds')).toBe(true);
    const labelNames = new Set([...families.values()].flatMap((fam) => fam.metrics.flatMap((m) => Object.keys(m.labels ?? {}))));
    for (const forbidden of ['user', 'user_id', 'token', 'key', 'ip', 'username']) expect(labelNames.has(forbidden)).toBe(false);
    const text = await (await fetch(`${f.gw.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(text).not.toContain(key.slice(3));
  });
});

describe('metrics switched off', () => {
  it('answers 404 at /metrics by default', async () => {
    const gw = await startTestGateway('sqlite');
    try {
      const res = await fetch(`${gw.url}/metrics`);
      expect(res.status).toBe(404);
      expect(await res.text()).toMatch(/METRICS_ENABLED/);
    } finally {
      await gw.close();
    }
  });
});
