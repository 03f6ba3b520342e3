import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fake-upstream/index.js';
import { type GatewayChild, type RelayChild, startRelayChild } from '../support/gateway-child.js';
import { waitFor } from './relay-fixture.js';

// Issue #22 item 6: clients that stop reading a stream. The built gateway runs in its own process so that
// its memory can be read from /proc; the fake provider floods (writes as fast as the gateway reads).

const FLOOD = 'flood-model';
const NORMAL = 'normal-model';
const STALLED = 40;
const WRITE_IDLE_SECONDS = 10;

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? NaN) / 1024;
}

/** A client that sends a stream request and never reads its answer (its socket stays paused). */
function stalledClient(url: string, key: string): Socket {
  const { hostname, port } = new URL(url);
  const body = JSON.stringify({ model: FLOOD, stream: true, messages: [{ role: 'user', content: 'flood me' }] });
  const socket = connect(Number(port), hostname);
  socket.on('error', () => undefined);
  socket.once('connect', () =>
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    ),
  );
  socket.pause();
  return socket;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('streams to clients that stop reading (built gateway)', () => {
  let relay: RelayChild;
  let up: FakeUpstream;
  let gw: GatewayChild;
  let key: string;

  beforeAll(async () => {
    relay = await startRelayChild(
      { STREAM_WRITE_IDLE_TIMEOUT: String(WRITE_IDLE_SECONDS) },
      {
        name: 'flood',
        tokenName: 'stall',
        models: [FLOOD, NORMAL],
        options: { ModelRatio: { [FLOOD]: 1, [NORMAL]: 1 }, CompletionRatio: { [FLOOD]: 1, [NORMAL]: 1 } },
      },
      { models: [FLOOD, NORMAL] },
    );
    ({ up, gw, key } = relay);
    up.script({ path: '/v1/chat/completions', model: FLOOD, flood: true });
  }, 240_000);

  afterAll(() => relay?.close());

  it('pauses the upstream, keeps memory bounded, serves others, ends the streams after the write-idle time and is idle once the clients leave', async () => {
    const pid = gw.child.pid!;
    const openai = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0, timeout: 10_000 });
    await openai.chat.completions.create({ model: NORMAL, messages: [{ role: 'user', content: 'warm up' }] });
    const rssBefore = rssMb(pid);

    const clients = Array.from({ length: STALLED }, () => stalledClient(gw.url, key));
    const floods = () => up.requests.filter((r) => r.body?.model === FLOOD);
    await waitFor(async () => (floods().length === STALLED ? true : undefined), 'every stalled stream to reach the provider', 20_000);

    // Back-pressure: once the socket buffers on the way are full, the provider cannot write any more.
    const sent = () => floods().reduce((sum, r) => sum + (r.bytesSent ?? 0), 0);
    let previous = -1;
    const progress: number[] = [];
    await waitFor(
      async () => {
        const now = sent();
        progress.push(now);
        const still = now === previous;
        previous = now;
        await sleep(500);
        return still ? true : undefined;
      },
      'the provider to be paused',
      (WRITE_IDLE_SECONDS - 1) * 1000,
    ).catch((error) => {
      throw new Error(`${error.message}; bytes sent by then: ${progress.join(', ')}`);
    });
    expect(floods().every((r) => !r.aborted)).toBe(true);
    const perStreamMb = sent() / STALLED / 1024 / 1024;
    // What is in flight per stream is socket buffers (kernel) plus a few small user-space buffers.
    expect(perStreamMb).toBeLessThan(16);
    expect(rssMb(pid) - rssBefore).toBeLessThan(80);

    // Others are served meanwhile, plain and streamed.
    const started = performance.now();
    const answer = await openai.chat.completions.create({ model: NORMAL, messages: [{ role: 'user', content: 'still there?' }] });
    expect(answer.choices[0]?.message.content).toBeTruthy();
    const stream = await openai.chat.completions.create({ model: NORMAL, stream: true, messages: [{ role: 'user', content: 'stream?' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBeTruthy();
    expect(performance.now() - started).toBeLessThan(5000);

    // The write-idle timeout ends each stalled stream and releases its upstream call.
    await waitFor(
      async () => (floods().every((r) => r.aborted) ? true : undefined),
      'the stalled streams to be ended',
      (WRITE_IDLE_SECONDS + 10) * 1000,
    );
    expect(rssMb(pid) - rssBefore).toBeLessThan(80);

    // The clients leave: the process is idle again and takes new connections at once.
    for (const socket of clients) socket.destroy();
    const cpu = () => {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return Number(fields[11]) + Number(fields[12]);
    };
    await sleep(500);
    const ticks = cpu();
    await sleep(2000);
    // Clock ticks are 10 ms: under 0.5 s of CPU in 2 s (a loaded CI machine included).
    expect(cpu() - ticks).toBeLessThan(50);
    const again = await openai.chat.completions.create({ model: NORMAL, messages: [{ role: 'user', content: 'after' }] });
    expect(again.choices[0]?.message.content).toBeTruthy();
  }, 120_000);
});
