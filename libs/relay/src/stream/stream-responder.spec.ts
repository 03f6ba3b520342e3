import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SseTracker } from './sse-tracker.js';
import { relayStream } from './stream-responder.js';

/** A client socket whose buffer is "full" until drain() is called. */
class SlowClient extends EventEmitter {
  written: string[] = [];
  head?: { status: number; headers: Record<string, string> };
  destroyed = false;
  full = true;
  writeHead(status: number, headers: Record<string, string>) {
    this.head = { status, headers };
  }
  write(text: string) {
    this.written.push(text);
    return !this.full;
  }
  end() {}
  drain() {
    this.full = false;
    this.emit('drain');
  }
}

const event = (n: number) => `data: {"choices":[{"delta":{"content":"w${n} "}}]}\n\n`;

describe('relayStream', () => {
  it('pauses the upstream while the client is not draining and resumes on drain', async () => {
    const body = new PassThrough();
    const client = new SlowClient();
    const done = relayStream(body, client as unknown as ServerResponse, new SseTracker(false, (t) => t.length, 1, true));
    body.write(event(1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(client.head).toMatchObject({ status: 200, headers: { 'Content-Type': 'text/event-stream', 'X-Accel-Buffering': 'no' } });
    expect(body.isPaused()).toBe(true);
    client.drain();
    expect(body.isPaused()).toBe(false);
    body.end(`${event(2)}data: [DONE]\n\n`);
    const outcome = await done;
    expect(outcome).toMatchObject({ delivered: true });
    expect(outcome.error).toBeUndefined();
    expect(client.written.join('')).toBe(`${event(1) + event(2)}data: [DONE]\n\n`);
  });

  it('reports a failure before the first event as not delivered (so it can be retried)', async () => {
    const body = new PassThrough();
    const client = new SlowClient();
    const done = relayStream(body, client as unknown as ServerResponse, new SseTracker(false, (t) => t.length, 1, true));
    body.destroy(new Error('reset'));
    const outcome = await done;
    expect(outcome.delivered).toBe(false);
    expect((outcome.error as Error).message).toBe('reset');
    expect(client.head).toBeUndefined();
  });
});
