import { Readable } from 'node:stream';
import { endsLine, idleTimeoutError, type IdleWatched, isLineStream, silenceAfter, unwatchIdle, watchIdle } from './idle-sweep.js';
import { toUpstreamError } from './upstream-errors.js';
import { UpstreamError, type BodyChunks, type BodySink, type CancelSignal, type UpstreamResponse } from './upstream.types.js';

type Headers = Record<string, string | string[] | undefined>;

/** Whoever reads the body: nobody yet, text() collecting it whole, the stream handed out by `body`, or a `chunks` sink. */
type Reader = 'none' | 'text' | 'stream' | 'sink';

/** Response header names and values from a raw list (undici's Buffers, or strings): names lower-cased, repeats as arrays. */
function parseRawHeaders(raw: (Buffer | string)[]): Headers {
  const headers: Headers = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1').toLowerCase();
    const value = raw[i + 1]!.toString('latin1');
    const seen = headers[name];
    if (seen === undefined) headers[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else headers[name] = [seen, value];
  }
  return headers;
}

/**
 * One upstream call on undici's dispatcher handler interface (Http1Dispatcher drives it too, unless a
 * connection limit is set). undici's `request()` wraps every answer in a body stream, an async resource and several promises; on the relay's hot path that was most of the
 * client's cost and of the garbage that outlives a young-generation GC. Here a whole answer read with
 * text() is gathered straight from the parser's chunks, and a stream exists only when a caller asks for
 * `body` (SSE relaying), with undici's pause/resume as its back-pressure. Every failure reaches the
 * caller as an UpstreamError: from send() before the headers, from text() or the stream after.
 */
export class UpstreamExchange implements IdleWatched {
  /** Settles send(): the response at its headers, or the failure before them. */
  readonly response: Promise<UpstreamResponse>;
  private resolveResponse!: (response: UpstreamResponse) => void;
  private rejectResponse!: (error: UpstreamError) => void;
  private abortRequest?: (reason?: Error) => void;
  private resumeRequest?: () => void;
  private headersSeen = false;
  private reader: Reader = 'none';
  private chunks: Buffer[] = [];
  private size = 0;
  private ended = false;
  private failure?: UpstreamError;
  private textWaiter?: { resolve: (text: string) => void; reject: (error: UpstreamError) => void };
  private stream?: Readable;
  private sink?: BodySink;
  private chunksReader?: BodyChunks;
  private sinkPaused = false;
  /** The sink heard end() or error(), or its reader abandoned the body. */
  private sinkClosed = false;
  private contentLength = NaN;
  /** The body is a line-wise stream (isLineStream): its idle timeout counts complete lines (Http1Dispatcher reads it too). */
  progressByLines = false;
  /** This exchange times lines itself (lineTimeoutMs, on undici): a line ended since the last sweep. */
  private timingLines = false;
  private lineSeen = false;
  private silentMs = 0;

  constructor(
    private readonly url: string,
    /** The most json()/text() will hold, in bytes. */
    private readonly cap: number,
    private readonly signal?: CancelSignal,
    /** Driven by Http1Dispatcher: onReadEnd() follows each read, whose pieces may be lent views. */
    private readonly readEnds = false,
    /**
     * Longest time in ms without a complete line in a line-wise stream (0: not timed here). For undici's pool,
     * whose own body timeout is re-armed by any byte; Http1Dispatcher times lines itself.
     */
    private readonly lineTimeoutMs = 0,
  ) {
    this.response = new Promise((resolve, reject) => {
      this.resolveResponse = resolve;
      this.rejectResponse = reject;
    });
    if (signal) signal.addEventListener('abort', this.onSignal, { once: true });
  }

  // ---- undici's handler interface ----

  onConnect(abort: (reason?: Error) => void): void {
    this.abortRequest = abort;
    if (this.signal?.aborted) abort(new UpstreamError('aborted', 'the request was aborted'));
  }

  onHeaders(statusCode: number, rawHeaders: (Buffer | string)[], resume: () => void): boolean {
    if (statusCode < 200) return true;
    this.resumeRequest = resume;
    if (statusCode >= 300 && statusCode < 400) {
      this.fail(new UpstreamError('redirect', `upstream answered ${statusCode} (redirects are not followed)`));
      this.abortRequest?.(new UpstreamError('redirect', 'redirect'));
      return false;
    }
    this.headersSeen = true;
    const headers = parseRawHeaders(rawHeaders);
    this.contentLength = Number(headers['content-length']);
    this.progressByLines = isLineStream(headers['content-type']);
    if (this.progressByLines && this.lineTimeoutMs > 0) {
      this.timingLines = true;
      watchIdle(this, this.lineTimeoutMs);
    }
    const exchange = this;
    this.resolveResponse({
      status: statusCode,
      headers,
      url: this.url,
      get body() {
        return exchange.openStream();
      },
      get chunks() {
        return exchange.openChunks();
      },
      text: () => this.readText(),
      json: async <T>() => {
        const text = await this.readText();
        try {
          return JSON.parse(text) as T;
        } catch {
          throw new UpstreamError('bad_response', 'upstream response is not valid JSON');
        }
      },
    });
    return true;
  }

  /** `lent`: a view of the connection's read buffer, valid only until onReadEnd(); copied if it is kept. */
  onData(chunk: Buffer, lent = false): boolean {
    if (this.timingLines && !this.lineSeen) this.lineSeen = endsLine(chunk);
    if (this.reader === 'sink') return this.sinkData(chunk, lent);
    if (lent) chunk = Buffer.from(chunk);
    if (this.reader === 'stream') return this.stream!.push(chunk);
    this.size += chunk.length;
    if (this.size > this.cap) {
      if (this.reader === 'text') {
        this.tooLarge();
        return false;
      }
      // Nobody has chosen yet: hold here until text() refuses it or the stream takes it.
      this.chunks.push(chunk);
      return false;
    }
    this.chunks.push(chunk);
    return true;
  }

  /** The pieces of one connection read have all been given (Http1Dispatcher only). */
  onReadEnd(): void {
    if (this.reader === 'sink' && !this.sinkClosed) this.sink?.readEnd?.();
  }

  onComplete(): void {
    this.ended = true;
    if (this.timingLines) unwatchIdle(this);
    this.detachSignal();
    if (this.reader === 'text') this.finishText();
    else if (this.reader === 'stream') this.stream!.push(null);
    else if (this.reader === 'sink') this.flushSink();
  }

  onError(error: Error): void {
    this.fail(toUpstreamError(error));
  }

  /** From the sweep (timingLines only): ends a stream without a complete line for lineTimeoutMs, and its connection. */
  checkIdle(elapsedMs: number): void {
    this.silentMs = silenceAfter(this.silentMs, elapsedMs, this.lineSeen || this.held);
    this.lineSeen = false;
    if (this.silentMs < this.lineTimeoutMs) return;
    // The same failure as undici's own body timeout, so the relay ends the stream the same way.
    const timeout = idleTimeoutError();
    this.fail(timeout);
    this.abortRequest?.(timeout);
  }

  /** undici is paused because the reader does not take what came (a slow client): no line is owed meanwhile, as in undici. */
  private get held(): boolean {
    if (this.reader === 'sink') return this.sinkPaused || this.chunks.length > 0;
    if (this.reader === 'stream') return this.stream!.readableLength >= this.stream!.readableHighWaterMark;
    return this.reader === 'none' && this.size > this.cap;
  }

  // ---- readers ----

  private readText(): Promise<string> {
    if (this.reader !== 'none') return Promise.reject(new Error('the upstream body was already read'));
    this.reader = 'text';
    if (this.failure) return Promise.reject(this.failure);
    if ((Number.isFinite(this.contentLength) && this.contentLength > this.cap) || this.size > this.cap) {
      // The whole answer may be here already (Http1Dispatcher parses a read to its end): refused all the same.
      const refused = this.tooLargeError();
      this.chunks = [];
      if (!this.ended) this.tooLarge(refused);
      return Promise.reject(refused);
    }
    return new Promise((resolve, reject) => {
      this.textWaiter = { resolve, reject };
      if (this.ended) this.finishText();
    });
  }

  private finishText(): void {
    const waiter = this.textWaiter;
    this.textWaiter = undefined;
    const chunks = this.chunks;
    this.chunks = [];
    waiter?.resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, this.size).toString('utf8'));
  }

  private openStream(): Readable {
    if (this.stream) return this.stream;
    if (this.reader === 'text') throw new Error('the upstream body was already read');
    this.reader = 'stream';
    const stream = new Readable({
      read: () => this.resumeRequest?.(),
      destroy: (error, callback) => {
        if (!this.ended && !this.failure) this.abortRequest?.(new UpstreamError('aborted', 'the body was abandoned'));
        callback(error);
      },
    });
    this.stream = stream;
    for (const chunk of this.chunks) stream.push(chunk);
    this.chunks = [];
    if (this.failure) process.nextTick(() => stream.destroy(this.failure));
    else if (this.ended) stream.push(null);
    else this.resumeRequest?.();
    return stream;
  }

  /** The sink reader; undefined once another reader took the body (so a caller falls back to `body`). */
  private openChunks(): BodyChunks | undefined {
    if (this.reader === 'sink') return this.chunksReader;
    if (this.reader !== 'none') return undefined;
    this.reader = 'sink';
    this.chunksReader = {
      readEnds: this.readEnds,
      start: (sink) => {
        if (this.sink) throw new Error('the upstream body already has a reader');
        this.sink = sink;
        this.flushSink();
      },
      pause: () => {
        this.sinkPaused = true;
      },
      resume: () => {
        if (!this.sinkPaused) return;
        this.sinkPaused = false;
        this.flushSink();
      },
      destroy: () => {
        if (this.sinkClosed) return;
        this.sinkClosed = true;
        this.chunks = [];
        if (!this.ended && !this.failure) this.abortRequest?.(new UpstreamError('aborted', 'the body was abandoned'));
      },
    };
    return this.chunksReader;
  }

  /** A chunk for the sink: handed over at once, or held (and undici paused) while the sink is paused or not started. */
  private sinkData(chunk: Buffer, lent: boolean): boolean {
    if (this.sinkClosed) return false;
    if (!this.sink || this.sinkPaused || this.chunks.length > 0) {
      this.chunks.push(lent ? Buffer.from(chunk) : chunk);
      return false;
    }
    this.sink.data(lent && !this.sink.readEnd ? Buffer.from(chunk) : chunk);
    return !this.sinkPaused;
  }

  /** Hands held chunks over until the sink pauses, then the end (or asks undici for more). */
  private flushSink(): void {
    const sink = this.sink;
    if (!sink || this.sinkClosed) return;
    if (this.chunks.length > 0) {
      while (this.chunks.length > 0 && !this.sinkPaused && !this.sinkClosed) sink.data(this.chunks.shift()!);
      if (!this.sinkClosed) sink.readEnd?.();
    }
    if (this.chunks.length > 0 || this.sinkPaused || this.sinkClosed) return;
    if (this.failure) {
      this.sinkClosed = true;
      sink.error(this.failure);
    } else if (this.ended) {
      this.sinkClosed = true;
      sink.end();
    } else {
      this.resumeRequest?.();
    }
  }

  // ---- endings ----

  private tooLarge(error = this.tooLargeError()): void {
    this.fail(error);
    this.abortRequest?.(new UpstreamError('too_large', 'too large'));
  }

  private tooLargeError(): UpstreamError {
    return new UpstreamError('too_large', `upstream response is larger than ${this.cap} bytes`);
  }

  /** The first failure wins; later ones (the abort it caused, a socket error) are ignored. */
  private fail(error: UpstreamError): void {
    if (this.failure || this.ended) return;
    this.failure = error;
    this.detachSignal();
    if (this.timingLines) unwatchIdle(this);
    // Before any reader chose (the relay may hold an answer until its reserve commits), what arrived is
    // kept: the sink reader still hands it over, then the error, as it would have live.
    if (this.reader !== 'none') this.chunks = [];
    if (!this.headersSeen) this.rejectResponse(error);
    this.textWaiter?.reject(error);
    this.textWaiter = undefined;
    if (this.stream && !this.stream.destroyed) this.stream.destroy(error);
    if (this.sink && !this.sinkClosed) {
      this.sinkClosed = true;
      this.sink.error(error);
    }
  }

  private readonly onSignal = (): void => {
    const aborted = new UpstreamError('aborted', 'the request was aborted');
    this.abortRequest?.(aborted);
    this.fail(aborted);
  };

  private detachSignal(): void {
    this.signal?.removeEventListener('abort', this.onSignal);
  }
}
