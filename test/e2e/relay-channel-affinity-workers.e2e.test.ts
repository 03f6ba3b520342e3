import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RelayChild, startRelayChild } from '../support/gateway-child.js';

const MODEL = 'gpt-affinity-workers';
/** Odd: the primary deals connections to the two workers in turn, so each conversation meets both of them. */
const SESSIONS = 5;
const CALLS = 6;

/** POSTs JSON on a connection of its own (fetch would reuse one, and the primary deals connections, not requests). */
function postOnNewConnection(url: string, headers: Record<string, string>, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { ...headers, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/**
 * WORKERS=2 on SQLite without Redis: the workers keep each other's channel affinity pins and usage counters over
 * the cluster's IPC channel, so a conversation keeps its channel whichever worker the primary hands it to.
 */
describe('channel affinity across the workers of WORKERS=2 without Redis', () => {
  let relay: RelayChild;

  beforeAll(async () => {
    relay = await startRelayChild({ WORKERS: '2' }, { name: 'affinity-w1', models: [MODEL], options: { ModelPrice: { [MODEL]: 0.001 } } });
    const second = await relay.root.post('/api/channel/', {
      mode: 'single',
      channel: { type: 1, name: 'affinity-w2', key: 'sk-up-affinity-w2', models: MODEL, group: 'default', base_url: relay.up.url },
    });
    expect(second.body.success, second.text).toBe(true);
  }, 180_000);

  afterAll(() => relay?.close());

  it(`keeps each of ${SESSIONS} Codex conversations on one channel over ${CALLS} calls on fresh connections`, async () => {
    const { gw, up, root, key } = relay;
    const channelOf = new Map<string, Set<string>>();
    for (let call = 0; call < CALLS; call++) {
      for (let session = 0; session < SESSIONS; session++) {
        const cacheKey = `workers-conversation-${session}`;
        // A new connection each time: the primary deals connections to the workers in turn.
        const status = await postOnNewConnection(
          `${gw.url}/v1/responses`,
          { authorization: `Bearer ${key}` },
          { model: MODEL, input: 'hi', prompt_cache_key: cacheKey },
        );
        expect(status).toBe(200);
        const served = String(up.requests.at(-1)!.headers.authorization);
        channelOf.set(cacheKey, (channelOf.get(cacheKey) ?? new Set()).add(served));
      }
    }
    // Without the shared pins, each conversation's first call on the other worker is a fresh pick (all five held
    // by chance: 1 in 32).
    for (const [session, channels] of channelOf) expect([...channels], session).toHaveLength(1);

    // Each worker counted every call of the conversation, whichever served it.
    const fp = createHash('sha1').update('workers-conversation-0').digest('hex').slice(0, 8);
    const url = `/api/log/channel_affinity_usage_cache?rule_name=${encodeURIComponent('codex cli trace')}&using_group=default&key_fp=${fp}`;
    await expect.poll(async () => (await root.get(url)).body.data?.total, { timeout: 10_000, interval: 100 }).toBe(CALLS);
  }, 120_000);
});
