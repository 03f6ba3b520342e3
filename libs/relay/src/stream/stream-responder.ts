import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { AppConfig } from '@gw/core';
import type { BodyChunks, BodySink } from '@gw/upstream';
import { EventStreamWriter } from './event-stream-writer.js';

/** new-api's SSE response headers. */
const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/**
 * Turns upstream bytes into what the client gets (the OpenAI tracker, or a format converter): text, or
 * the upstream's own bytes when they pass through unchanged.
 */
export interface StreamRewriter {
  push(chunk: Buffer): string | Buffer;
  end(): string | Buffer;
}

export interface StreamOutcome {
  /** Something was written to the client (no retry possible any more). */
  delivered: boolean;
  /** Why the stream stopped early (upstream error, idle timeout, client abort); undefined when it ended normally. */
  error?: unknown;
  /** performance.now() of the first upstream body chunk. */
  firstChunkAt?: number;
}

/** How long and how much a stream may wait on a client that reads slower than its upstream writes. */
export interface StreamLimits {
  /** A client that takes nothing for this long (its socket buffer full) ends the stream. */
  writeIdleMs: number;
  /** Bytes queued for the client past which the stream is ended (a single huge event to a slow reader). */
  maxBufferedBytes: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { writeIdleMs: 60_000, maxBufferedBytes: 4 * 1024 * 1024 };

/** The limits from the typed config (STREAM_WRITE_IDLE_TIMEOUT, STREAM_MAX_BUFFER_MB). */
export function streamLimitsOf(config: Pick<AppConfig, 'relay'>): StreamLimits {
  return { writeIdleMs: config.relay.streamWriteIdleSeconds * 1000, maxBufferedBytes: config.relay.streamMaxBufferedBytes };
}

/** The client stopped reading (or reads far slower than the upstream writes): the stream was ended. */
export class ClientStalledError extends Error {
  constructor(reason: string) {
    super(`client stopped reading the stream (${reason})`);
    this.name = 'ClientStalledError';
  }
}

/**
 * Pipes an upstream SSE body to the client event by event as it arrives. Back-pressure end to end: while
 * the client's socket buffer is full the upstream body is paused (undici then stops reading its socket, so
 * the provider's TCP window closes) and resumed on 'drain'. A client that stays full for
 * `limits.writeIdleMs`, or has more than `limits.maxBufferedBytes` queued, has the stream ended: both
 * sockets are released instead of held for a reader that is gone. The response head is written with the
 * first event, so a failure before it can still be retried on another channel.
 *
 * What one upstream read brings (several HTTP chunks, each its own onData) is written as one HTTP chunk:
 * one socket write, which is most of the CPU per relayed chunk, instead of one per upstream chunk. A body
 * that signals the end of each read (BodyChunks.readEnds: the relay's own HTTP/1.1 client) has it written
 * right there, from the bytes it lent, which are neither copied nor kept: with thousands of streams the
 * copy, and the queue of streams to flush later, were a measurable part of the CPU per relayed chunk.
 * Other bodies have what one event-loop iteration brings written in that iteration's check phase: all
 * streams share one setImmediate per iteration (see flushSoon), which runs a bounded number of them
 * (FLUSHES_PER_TURN), the rest in the next iteration.
 */
export function relayStream(
  upstream: BodyChunks | Readable,
  res: ServerResponse,
  tracker: StreamRewriter,
  limits: StreamLimits = DEFAULT_STREAM_LIMITS,
): Promise<StreamOutcome> {
  const body = upstream instanceof Readable ? readableChunks(upstream) : upstream;
  return new Promise((resolve) => {
    const outcome: StreamOutcome = { delivered: false };
    // Kept here and copied into `outcome` at the end, as is whether the body signals its reads' ends: per
    // relayed chunk, every further object reached is one more cold cache line with thousands of streams.
    let delivered = false;
    let firstChunkAt: number | undefined;
    const readEnds = body.readEnds === true;
    let finished = false;
    let stallTimer: NodeJS.Timeout | undefined;
    const out = new EventStreamWriter(res);
    /**
     * Output of this read (or iteration) not yet written (see flushTurn): the first, then any more. A single
     * output, the usual relayed chunk, is held without an array, whose emptied store grew again for every chunk.
     */
    let first: string | Buffer | undefined;
    const more: (string | Buffer)[] = [];
    let pendingLength = 0;

    const resume = () => {
      clearTimeout(stallTimer);
      stallTimer = undefined;
      body.resume();
    };

    /** Writes what this turn gathered; `flush` false drops it (the client is being cut off). */
    const finish = (error?: unknown, flush = true) => {
      if (finished) return;
      if (flush && first !== undefined) writePending();
      // Writing the last output can itself end the stream (the client stalled): that ending stands.
      if (finished) return;
      finished = true;
      first = undefined;
      if (more.length > 0) more.length = 0;
      clearTimeout(stallTimer);
      out.offDrain(resume);
      out.release();
      if (error !== undefined) {
        outcome.error = error;
        body.destroy();
      }
      outcome.delivered = delivered;
      if (firstChunkAt !== undefined) outcome.firstChunkAt = firstChunkAt;
      resolve(outcome);
    };

    /** Ends a stream whose client does not take what it is sent: the upstream call and both sockets are freed. */
    const stalled = (reason: string) => {
      finish(new ClientStalledError(reason), false);
      res.destroy();
    };

    const write = (text: string | Buffer) => {
      if (text.length === 0 || res.destroyed) return;
      if (!delivered) {
        delivered = true;
        out.start(SSE_HEADERS);
      }
      if (out.write(text) || stallTimer !== undefined) return;
      if (out.queued > limits.maxBufferedBytes) {
        stalled(`more than ${limits.maxBufferedBytes} bytes queued`);
        return;
      }
      body.pause();
      out.onceDrain(resume);
      stallTimer = setTimeout(stalled, limits.writeIdleMs, `nothing read for ${limits.writeIdleMs} ms`);
    };
    const writePending = () => {
      const output = more.length === 0 ? first! : joined(first!, more);
      first = undefined;
      if (more.length > 0) more.length = 0;
      pendingLength = 0;
      write(output);
    };
    // Runs at the end of a read, or from the shared flush (flushDue): a failure ends this stream only, never
    // the other streams' writes (nor the read of the upstream connection that lent the bytes).
    const flushTurn = () => {
      if (finished || first === undefined) return;
      try {
        writePending();
      } catch (error) {
        finish(error, false);
        res.destroy();
      }
    };
    const onData = (chunk: Buffer) => {
      firstChunkAt ??= performance.now();
      let output: string | Buffer;
      try {
        output = tracker.push(chunk);
      } catch (error) {
        finish(error);
        return;
      }
      if (output.length === 0) return;
      // The first output of this iteration registers the stream for the shared flush, unless the read's end is signalled.
      if (first === undefined) {
        first = output;
        if (!readEnds) flushSoon(flushTurn);
      } else {
        more.push(output);
      }
      pendingLength += output.length;
      // A fast upstream is written (and paused if the client is full) at once: libuv reads a busy socket up
      // to 32 times in one iteration, so waiting for the check phase could gather megabytes per stream.
      if (pendingLength >= FLUSH_NOW_LENGTH) writePending();
    };

    const onEnd = () => {
      if (finished) return;
      if (first !== undefined) writePending();
      if (finished) return;
      try {
        write(tracker.end());
      } catch (error) {
        finish(error);
        return;
      }
      res.end();
      if (!res.writableFinished) releaseWhenUnread(res, limits.writeIdleMs);
      finish();
    };
    body.start({
      data: (chunk) => !finished && onData(chunk),
      readEnd: flushTurn,
      end: onEnd,
      error: (error) => finish(error),
    });
  });
}

/** Output (characters or bytes) a stream gathers in one iteration before it is written without waiting for the flush. */
const FLUSH_NOW_LENGTH = 16 * 1024;

/**
 * Streams' flushes waiting to run, in the order their streams gathered output; `due[next]` runs next. At
 * most FLUSHES_PER_TURN run in one check phase: with thousands of streams, flushing all that a burst of
 * upstream reads gathered (a few ms of socket writes) in one macrotask held up everything else on the
 * loop, and a normal request waits through such a run at each of its steps. The rest run in the next
 * iteration's check phase, after its I/O.
 */
let due: ((() => void) | undefined)[] = [];
let next = 0;
let scheduled = false;
/** About half a millisecond of socket writes on a 2020s core. */
export const FLUSHES_PER_TURN = 64;

/**
 * Runs `flush` in a check phase of the event loop, with other streams' flushes: one Immediate per
 * iteration for all streams instead of a microtask per chunk. A stream is registered by its first pending
 * output, so at most once until its flush runs; a flush of an ended stream finds nothing pending.
 */
function flushSoon(flush: () => void): void {
  due.push(flush);
  if (scheduled) return;
  scheduled = true;
  setImmediate(flushDue);
}

function flushDue(): void {
  const end = Math.min(due.length, next + FLUSHES_PER_TURN);
  while (next < end) {
    const flush = due[next]!;
    due[next++] = undefined;
    flush();
  }
  if (next < due.length) {
    // Drop what already ran once it is most of the array (a queue that is never empty does not grow for ever).
    if (next > 1024 && next * 2 > due.length) {
      due = due.slice(next);
      next = 0;
    }
    setImmediate(flushDue);
    return;
  }
  due.length = 0;
  next = 0;
  scheduled = false;
}

/** Several outputs of one iteration as one piece of bytes (text as UTF-8). */
function joined(first: string | Buffer, more: (string | Buffer)[]): Buffer {
  return Buffer.concat([first, ...more].map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : part)));
}

/** A Readable body (a response an adaptor rebuilt, or a test's) read as BodyChunks. */
function readableChunks(body: Readable): BodyChunks {
  let closed = false;
  const close = (sink: BodySink, error?: Error) => {
    if (closed) return;
    closed = true;
    if (error) sink.error(error);
    else sink.end();
  };
  return {
    start: (sink) => {
      body.on('data', (chunk: Buffer) => !closed && sink.data(chunk));
      body.once('end', () => close(sink));
      body.once('error', (error) => close(sink, error));
      body.once('close', () => close(sink, new Error('upstream stream closed early')));
    },
    pause: () => body.pause(),
    resume: () => body.resume(),
    destroy: () => {
      closed = true;
      body.destroy();
    },
  };
}

/** The answer is complete but still queued for a client that stopped reading: it gets the idle time, then the socket is freed. */
function releaseWhenUnread(res: ServerResponse, idleMs: number): void {
  const timer = setTimeout(() => res.destroy(), idleMs);
  timer.unref();
  const clear = () => clearTimeout(timer);
  res.once('finish', clear);
  res.once('close', clear);
}
