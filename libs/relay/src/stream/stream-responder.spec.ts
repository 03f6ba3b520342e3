import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SseTracker } from './sse-tracker.js';
import { ClientStalledError, relayStream } from './stream-responder.js';

/** A client socket whose buffer is "full" until drain() is called. */
class SlowClient extends EventEmitter {
  written: string[] = [];
  head?: { status: number; headers: Record<string, string> };
  destroyed = false;
  full = true;
  writableLength = 0;
  writableFinished = false;
  destroy() {
    this.destroyed = true;
  }
  writeHead(status: number, headers: Record<string, string>) {
    this.head = { status, headers };
  }
  flushHeaders() {}
  write(text: string) {
    this.written.push(text);
    if (this.full) this.writableLength += text.length;
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

  it('ends the stream and releases both sides when the client reads nothing for the write-idle time', async () => {
    const body = new PassThrough();
    const client = new SlowClient();
    const done = relayStream(body, client as unknown as ServerResponse, new SseTracker(false, (t) => t.length, 1, true), {
      writeIdleMs: 30,
      maxBufferedBytes: 1024 * 1024,
    });
    body.write(event(1));
    const outcome = await done;
    expect(outcome.delivered).toBe(true);
    expect(outcome.error).toBeInstanceOf(ClientStalledError);
    expect(body.destroyed).toBe(true);
    expect(client.destroyed).toBe(true);
  });

  it('ends the stream when more than the per-stream cap is queued for the client', async () => {
    const body = new PassThrough();
    const client = new SlowClient();
    const done = relayStream(body, client as unknown as ServerResponse, new SseTracker(false, (t) => t.length, 1, true), {
      writeIdleMs: 60_000,
      maxBufferedBytes: 100,
    });
    body.write(`data: {"choices":[{"delta":{"content":"${'x'.repeat(200)}"}}]}\n\n`);
    const outcome = await done;
    expect((outcome.error as Error).message).toMatch(/more than 100 bytes queued/);
    expect(body.destroyed).toBe(true);
    expect(client.destroyed).toBe(true);
  });
});
