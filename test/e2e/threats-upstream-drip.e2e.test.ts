import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAT, startRelayFixture, type RelayFixture } from './relay-fixture.js';
import { relayError } from '../support/relay-error.js';

/** A chat stream chunk as a provider writes it, a whole event. */
const event = (content: string) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-drip',
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: CHAT,
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  })}\n\n`;

/** 40 single bytes 250 ms apart: ten seconds of bytes that never end a line. */
const DRIP = Array.from({ length: 40 }, () => 'x');
const DRIP_MS = 250;
/** One byte, then silence past the streaming timeout: what the idle timeout always caught. */
const SILENCE_MS = 8000;

/**
 * threats.md F4: an upstream that answers a stream and then drips a byte now and then, never a whole SSE
 * line, must not hold the stream (and its client, who gets nothing more) open: STREAMING_TIMEOUT counts
 * lines, as new-api re-arms it per scanned line. The client gets the same ending as from an upstream that
 * went silent, and the upstream connection is closed. Both HTTP clients: the lean one, and undici's pool
 * under a connection limit. Database-independent, so SQLite only.
 */
describe.each([
  ['the lean HTTP/1.1 client', {}],
  ["undici's pool", { RELAY_MAX_CONNECTIONS_PER_ORIGIN: '4' }],
])('relay: an upstream that drips bytes but no lines, through %s', (_name, env) => {
  let f: RelayFixture;
  let key: string;

  beforeAll(async () => {
    f = await startRelayFixture('sqlite', { STREAMING_TIMEOUT: '1', ...env });
    await f.channel();
    key = (await f.token({ unlimited_quota: true })).key;
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  /** One stream request answered with `pieces` written `gapMs` apart: its status, body, time taken and whether the upstream call was cut. */
  async function streamed(pieces: string[], gapMs: number) {
    f.up.reset();
    f.up.script({ path: '/v1/chat/completions', raw: { contentType: 'text/event-stream', body: pieces }, chunkDelayMs: gapMs });
    const started = Date.now();
    const res = await fetch(`${f.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT, messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    const text = await res.text();
    const ms = Date.now() - started;
    const cut = await waitUntil(() => f.up.requests[0]?.aborted === true);
    return { status: res.status, headers: res.headers, text, ms, cut };
  }

  it('ends a stream that drips before its first event as one that fell silent: an error, the upstream call closed', async () => {
    const dripped = await streamed(['data: {"id"', ...DRIP], DRIP_MS);
    const silent = await streamed(['data: {"id"', 'x'], SILENCE_MS);
    expect(dripped.ms).toBeLessThan(5000);
    expect(dripped.cut).toBe(true);
    expect(dripped.status).toBeGreaterThanOrEqual(500);
    expect(dripped.text).toContain('idle timeout');
    // The same answer but for the request id at the end of the message, each the id of its own answer.
    const answer = (r: typeof dripped) => ({ status: r.status, body: relayError({ headers: r.headers, body: JSON.parse(r.text) }) });
    expect(answer(dripped)).toEqual(answer(silent));
  });

  it('ends a stream that drips after an event as one that fell silent: what was sent, then the end, the upstream call closed', async () => {
    const dripped = await streamed([event('hello'), ...DRIP], DRIP_MS);
    const silent = await streamed([event('hello'), 'x'], SILENCE_MS);
    expect(dripped.ms).toBeLessThan(5000);
    expect(dripped.cut).toBe(true);
    expect(dripped.status).toBe(200);
    expect(dripped.text).toContain('"content":"hello"');
    expect({ status: dripped.status, text: dripped.text }).toEqual({ status: silent.status, text: silent.text });
  });
});

async function waitUntil(probe: () => boolean, timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}
