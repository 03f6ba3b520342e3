import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import type { BodyChunks, BodySink } from '@gw/upstream';
import { describe, expect, it } from 'vitest';
import { SseTracker } from './sse-tracker.js';
import { ClientStalledError, FLUSHES_PER_TURN, relayStream } from './stream-responder.js';

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

  describe('one write per stream per event-loop turn', () => {
    /** An upstream body whose chunks the test hands over itself, several in one turn like one socket read's HTTP chunks. */
    function manualBody() {
      let sink: BodySink | undefined;
      return {
        chunks: {
          start: (s: BodySink) => (sink = s),
          pause: () => undefined,
          resume: () => undefined,
          destroy: () => undefined,
        } satisfies BodyChunks,
        deliver: (...parts: string[]) => {
          for (const part of parts) sink!.data(Buffer.from(part));
        },
        end: () => sink!.end(),
        fail: (error: Error) => sink!.error(error),
      };
    }
    const readingClient = () => Object.assign(new SlowClient(), { full: false });
    const usageEvent = 'data: {"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":9}}\n\n';

    const nextIteration = () => new Promise((resolve) => setImmediate(resolve));

    it('writes the events of one turn as one piece, in order, and the next turn separately', async () => {
      const body = manualBody();
      const client = readingClient();
      const done = relayStream(body.chunks, client as unknown as ServerResponse, new SseTracker(false, (t) => t.length, 1, true));
      body.deliver(event(1), event(2), event(3));
      expect(client.written).toEqual([]);
      await Promise.resolve();
      // Not after a microtask: in the event loop's check phase, with every other stream's writes.
      expect(client.written).toEqual([]);
      await nextIteration();
      expect(client.written.map(String)).toEqual([event(1) + event(2) + event(3)]);
      body.deliver(event(4));
      await nextIteration();
      body.end();
      await done;
      expect(client.written.map(String)).toEqual([event(1) + event(2) + event(3), event(4), 'data: [DONE]\n\n']);
    });

    it("runs at most FLUSHES_PER_TURN streams' writes in one check phase, the rest in the next iterations, each stream in order", async () => {
      const streams = Array.from({ length: FLUSHES_PER_TURN * 2 + 10 }, () => {
        const body = manualBody();
        const client = readingClient();
        const done = relayStream(body.chunks, client as unknown as ServerResponse, new SseTracker(false, (t) => t.length, 1, true));
        return { body, client, done };
      });
      for (const { body } of streams) body.deliver(event(1));
      const writers = () => streams.filter(({ client }) => client.written.length > 0).length;
      await nextIteration();
      expect(writers()).toBe(FLUSHES_PER_TURN);
      // A stream waiting for its turn gathers what comes meanwhile into the same write.
      streams.at(-1)!.body.deliver(event(2));
      await nextIteration();
      expect(writers()).toBe(FLUSHES_PER_TURN * 2);
      await nextIteration();
      expect(writers()).toBe(streams.length);
      expect(streams.at(-1)!.client.written.map(String)).toEqual([event(1) + event(2)]);
      for (const { body } of streams) body.end();
      await Promise.all(streams.map(({ done }) => done));
    });

    it('writes at once (and pauses the upstream when the client is full) once a turn gathers 16 KB', () => {
      const body = manualBody();
      const paused: boolean[] = [];
      body.chunks.pause = () => void paused.push(true);
      const client = new SlowClient();
      void relayStream(body.chunks, client as unknown as ServerResponse, new SseTracker(false, (t) => t.length, 1, true), {
        writeIdleMs: 60_000,
        maxBufferedBytes: 1024 * 1024,
      });
      const big = `data: {"choices":[{"delta":{"content":"${'x'.repeat(4000)}"}}]}\n\n`;
      body.deliver(big, big, big);
      expect(client.written).toEqual([]);
      body.deliver(big, big);
      // Synchronously, in the same turn: a flooding upstream stops being read before the next socket read.
      expect(client.written.length).toBe(1);
      expect(paused).toEqual([true]);
      body.fail(new Error('done'));
    });

    it('joins an event split across reads and bills from usage in the last event of the turn', async () => {
      const body = manualBody();
      const client = readingClient();
      const tracker = new SseTracker(false, (t) => t.length, 1, true);
      const done = relayStream(body.chunks, client as unknown as ServerResponse, tracker);
      const split = event(5);
      body.deliver(event(4), split.slice(0, 17), split.slice(17), usageEvent, 'data: [DONE]\n\n');
      body.end();
      const outcome = await done;
      expect(outcome.error).toBeUndefined();
      expect(client.written.map(String).join('')).toBe(`${event(4) + event(5)}data: [DONE]\n\n`);
      expect(tracker.finalUsage()).toEqual({ usage: { promptTokens: 4, completionTokens: 9, cachedTokens: 0 }, local: false });
    });

    it('still delivers what arrived in the turn an upstream error ends', async () => {
      const body = manualBody();
      const client = readingClient();
      const done = relayStream(body.chunks, client as unknown as ServerResponse, new SseTracker(false, (t) => t.length, 1, true));
      body.deliver(event(1));
      body.fail(new Error('reset'));
      const outcome = await done;
      expect(outcome.delivered).toBe(true);
      expect((outcome.error as Error).message).toBe('reset');
      expect(client.written.map(String)).toEqual([event(1)]);
    });

    it('writes what one read lent as one piece at its readEnd, before the read buffer is reused', async () => {
      let sink: BodySink | undefined;
      const chunks: BodyChunks = {
        readEnds: true,
        start: (s) => (sink = s),
        pause: () => undefined,
        resume: () => undefined,
        destroy: () => undefined,
      };
      /** Like the relay's HTTP/1.1 client: every read lands in one buffer, its pieces are lent as views of it. */
      const readBuffer = Buffer.alloc(1024);
      const read = (...parts: string[]) => {
        let at = 0;
        for (const part of parts) {
          const length = readBuffer.write(part, at);
          sink!.data(readBuffer.subarray(at, at + length));
          at += length;
        }
        sink!.readEnd!();
        readBuffer.fill('#');
      };
      const client = readingClient();
      const done = relayStream(chunks, client as unknown as ServerResponse, new SseTracker(false, (t) => t.length, 1, true));
      read(event(1), event(2));
      // Written within the read (no timer), and intact although the read buffer was overwritten since.
      expect(client.written.map(String)).toEqual([event(1) + event(2)]);
      read(event(3));
      expect(client.written.map(String)).toEqual([event(1) + event(2), event(3)]);
      await nextIteration();
      expect(client.written.map(String)).toEqual([event(1) + event(2), event(3)]);
      sink!.end();
      await done;
      expect(client.written.map(String).join('')).toBe(`${event(1) + event(2) + event(3)}data: [DONE]\n\n`);
    });

    it('pauses the upstream when the joined write fills a client that stopped reading', async () => {
      const body = manualBody();
      const paused: boolean[] = [];
      body.chunks.pause = () => void paused.push(true);
      const client = new SlowClient();
      const done = relayStream(body.chunks, client as unknown as ServerResponse, new SseTracker(false, (t) => t.length, 1, true), {
        writeIdleMs: 30,
        maxBufferedBytes: 1024 * 1024,
      });
      body.deliver(event(1), event(2));
      const outcome = await done;
      expect(paused).toEqual([true]);
      expect(client.written.map(String)).toEqual([event(1) + event(2)]);
      expect(outcome.error).toBeInstanceOf(ClientStalledError);
      expect(client.destroyed).toBe(true);
    });
  });
});
