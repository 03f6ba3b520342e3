import { UpstreamError } from './upstream.types.js';

/** The failure of a body that made no progress for its idle timeout: one wording for both clients and undici's own timeout. */
export function idleTimeoutError(): UpstreamError {
  return new UpstreamError('timeout', 'upstream stopped sending (idle timeout)');
}

/**
 * How long a body has gone without progress after one more sweep: none after progress (or while its reader
 * holds it paused, owing nothing), else longer by the sweep's interval. Compared by the caller to its timeout.
 */
export function silenceAfter(silentMs: number, elapsedMs: number, progressed: boolean): number {
  return progressed ? 0 : silentMs + elapsedMs;
}

/** A body read with an idle timeout, told by the sweep how long passed since the previous check. */
export interface IdleWatched {
  checkIdle(elapsedMs: number): void;
}

/**
 * Bodies read with an idle timeout, checked together by one interval instead of a timer refresh per
 * chunk. The interval is a quarter of the shortest timeout watched, between 50 ms and 1 s: with the
 * default STREAMING_TIMEOUT a timeout fires at most a second late, and 5,000 streams cost 5,000 checks a
 * second (at 100 ms they were ~2 % of the gateway's busy time).
 */
const watched = new Set<IdleWatched>();
let sweeper: NodeJS.Timeout | undefined;
let sweepMs = 0;
let lastSweep = 0;

export function watchIdle(body: IdleWatched, timeoutMs: number): void {
  watched.add(body);
  const wanted = Math.min(1000, Math.max(50, Math.floor(timeoutMs / 4)));
  if (sweeper && wanted >= sweepMs) return;
  if (sweeper) clearInterval(sweeper);
  else lastSweep = performance.now();
  sweepMs = wanted;
  sweeper = setInterval(sweep, sweepMs);
  sweeper.unref();
}

export function unwatchIdle(body: IdleWatched): void {
  if (!watched.delete(body) || watched.size > 0 || !sweeper) return;
  clearInterval(sweeper);
  sweeper = undefined;
}

function sweep(): void {
  const now = performance.now();
  const elapsed = now - lastSweep;
  lastSweep = now;
  for (const body of watched) body.checkIdle(elapsed);
}

const LF = 0x0a;

/**
 * A stream whose reader (the relay's SSE tracker, an NDJSON framer) takes it line by line: its idle
 * timeout counts only complete lines as progress, as new-api re-arms STREAMING_TIMEOUT per scanned line.
 * Any byte would let an upstream that drips a byte now and then, and never finishes a line, hold the
 * stream (and the client, who gets nothing) open for ever (threats F4). Other bodies (JSON, audio, AWS
 * event-stream frames) have no lines to count, so any byte is progress there.
 */
export function isLineStream(contentType: string | string[] | undefined): boolean {
  const type = Array.isArray(contentType) ? contentType[0] : contentType;
  return type !== undefined && /text\/event-stream|ndjson/i.test(type);
}

/** A piece of a line-wise body that ends a line. A comment or blank line counts: providers send them to keep a slow stream alive. */
export function endsLine(piece: Buffer): boolean {
  return piece.indexOf(LF) !== -1;
}
