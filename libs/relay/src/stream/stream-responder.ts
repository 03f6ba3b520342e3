import type { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';

/** new-api's SSE response headers. */
const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** Turns upstream bytes into what the client gets (the OpenAI tracker, or a format converter). */
export interface StreamRewriter {
  push(chunk: Buffer): string;
  end(): string;
}

export interface StreamOutcome {
  /** Something was written to the client (no retry possible any more). */
  delivered: boolean;
  /** Why the stream stopped early (upstream error, idle timeout, client abort); undefined when it ended normally. */
  error?: unknown;
  /** performance.now() of the first upstream body chunk. */
  firstChunkAt?: number;
}

/**
 * Pipes an upstream SSE body to the client event by event as it arrives. Back-pressure: the upstream is
 * paused while the client's socket buffer is full and resumed on 'drain'. The response head is written
 * with the first event, so a failure before it can still be retried on another channel.
 */
export function relayStream(body: Readable, res: ServerResponse, tracker: StreamRewriter): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const outcome: StreamOutcome = { delivered: false };
    let finished = false;
    const resume = () => body.resume();

    const finish = (error?: unknown) => {
      if (finished) return;
      finished = true;
      body.off('data', onData);
      res.off('drain', resume);
      if (error !== undefined) {
        outcome.error = error;
        body.destroy();
      }
      resolve(outcome);
    };

    const write = (text: string) => {
      if (!text || res.destroyed) return;
      if (!outcome.delivered) {
        outcome.delivered = true;
        res.writeHead(200, SSE_HEADERS);
      }
      if (!res.write(text)) {
        body.pause();
        res.once('drain', resume);
      }
    };

    const onData = (chunk: Buffer) => {
      outcome.firstChunkAt ??= performance.now();
      try {
        write(tracker.push(chunk));
      } catch (error) {
        finish(error);
      }
    };

    body.on('data', onData);
    body.once('end', () => {
      if (finished) return;
      try {
        write(tracker.end());
      } catch (error) {
        finish(error);
        return;
      }
      res.end();
      finish();
    });
    body.once('error', (error) => finish(error));
    body.once('close', () => finish(new Error('upstream stream closed early')));
  });
}
