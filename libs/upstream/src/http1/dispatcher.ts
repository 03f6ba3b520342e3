import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { endsLine, idleTimeoutError, type IdleWatched, silenceAfter, unwatchIdle, watchIdle } from '../idle-sweep.js';
import { addressRefused, publicOnlyLookup, refusedLiteral } from '../public-only.js';
import { toUpstreamError } from '../upstream-errors.js';
import { UpstreamError } from '../upstream.types.js';
import { ResponseParser, type ResponseParts } from './response-parser.js';

/** One call, as UpstreamClient prepares it for undici's dispatcher (the same fields). */
export interface Http1Request {
  /** `http(s)://host[:port]`. */
  origin: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** First-byte timeout in ms (0: none). */
  headersTimeout: number;
  /** Longest time in ms without progress (a byte, or a line: see isLineStream) while the reader takes the body (0: none). */
  bodyTimeout: number;
  /**
   * Only a public address may be connected to (see public-only.ts): such calls have connections of their own,
   * opened with the checking lookup, so a connection opened without it is never handed to them.
   */
  publicOnly?: boolean;
}

/** The part of undici's dispatch handler interface that UpstreamExchange implements. */
export interface Http1Handler {
  onConnect(abort: (reason?: Error) => void): void;
  onHeaders(statusCode: number, rawHeaders: string[], resume: () => void): boolean;
  /** Set by onHeaders: the body's idle timeout counts complete lines only (see isLineStream). */
  readonly progressByLines?: boolean;
  /** `lent`: a view of a read buffer shared by all connections, valid only until onReadEnd(). */
  onData(chunk: Buffer, lent: boolean): boolean;
  /** Every piece of one socket read has been given to onData. */
  onReadEnd(): void;
  onComplete(trailers: string[]): void;
  onError(error: Error): void;
}

export interface Http1DispatcherOptions {
  connectTimeoutMs: number;
  /** How long an idle connection is kept for the next call (shortened by the server's Keep-Alive hint). */
  keepAliveMs: number;
}

/** Hop-by-hop and framing headers the client writes itself; a channel's header override cannot set them. */
const OWN_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer']);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value may hold neither CR, LF nor NUL (request splitting). */
const BAD_VALUE = /[\r\n\0]/;

/**
 * A minimal HTTP/1.1 client for upstream calls, streamed answers (SSE relaying) first, on plain `net`/`tls` sockets:
 * keep-alive connections per origin, the same connect, first-byte and idle-body timeouts as undici's Agent,
 * back-pressure by pausing the socket, and abort by destroying it. With thousands of streams, undici's
 * per-chunk path (its socket's 'readable' event and a nextTick per read, the WASM parser's callbacks, a
 * timer refresh) was about a sixth of the gateway's CPU per relayed chunk; here a read is one 'data' event,
 * a few byte comparisons and a subarray. Answers read whole (JSON) take it too: per call it costs about 38 us of
 * CPU where undici's costs about 52 (nginx answering a chat completion, 50 calls at a time). A connection limit
 * (RELAY_MAX_CONNECTIONS_PER_ORIGIN) keeps every call on undici, whose pool queues them.
 */
export class Http1Dispatcher {
  private readonly idle = new Map<string, Http1Connection[]>();
  /** Idle connections opened under the public-only rule: never handed to other calls, nor theirs to these. */
  private readonly idlePublic = new Map<string, Http1Connection[]>();
  private closed = false;

  constructor(private readonly options: Http1DispatcherOptions) {}

  dispatch(request: Http1Request, handler: Http1Handler): void {
    if (this.closed) {
      handler.onError(new UpstreamError('connect', 'the upstream client is closed'));
      return;
    }
    const publicOnly = request.publicOnly === true;
    let connection = this.takeIdle(request.origin, publicOnly);
    if (!connection) {
      if (publicOnly && refusedLiteral(new URL(request.origin).hostname)) {
        // A literal address is never looked up: checked here, once per connection it would open.
        handler.onError(addressRefused());
        return;
      }
      connection = new Http1Connection(this, request.origin, this.options.connectTimeoutMs, publicOnly);
    }
    connection.send(request, handler);
  }

  /** Closes idle connections; calls in flight finish (their connections are then closed, not kept). */
  close(): void {
    this.closed = true;
    for (const idle of [this.idle, this.idlePublic]) {
      for (const list of idle.values()) for (const connection of list.splice(0)) connection.destroy();
      idle.clear();
    }
  }

  /** A connection whose answer ended cleanly, kept for the next call to its origin. */
  keep(connection: Http1Connection, hintMs: number | undefined): void {
    // The server's hint minus a second, as undici does, so that we never write to a socket it is closing.
    const keepMs = hintMs === undefined ? this.options.keepAliveMs : Math.min(this.options.keepAliveMs, hintMs - 1000);
    if (this.closed || keepMs <= 0) {
      connection.destroy();
      return;
    }
    const idle = this.idleOf(connection.publicOnly);
    let list = idle.get(connection.origin);
    if (!list) {
      list = [];
      idle.set(connection.origin, list);
    }
    list.push(connection);
    connection.idleFor(keepMs);
  }

  /** An idle connection closed or expired. */
  forget(connection: Http1Connection): void {
    const idle = this.idleOf(connection.publicOnly);
    const list = idle.get(connection.origin);
    const at = list?.indexOf(connection) ?? -1;
    if (at < 0) return;
    list!.splice(at, 1);
    if (list!.length === 0) idle.delete(connection.origin);
  }

  /** The idle connections of one kind: a public-only call never reuses a connection opened without the check, nor the other way round. */
  private idleOf(publicOnly: boolean): Map<string, Http1Connection[]> {
    return publicOnly ? this.idlePublic : this.idle;
  }

  private takeIdle(origin: string, publicOnly: boolean): Http1Connection | undefined {
    const idle = this.idleOf(publicOnly);
    const list = idle.get(origin);
    // The most recently used first: its socket is the least likely to be closing.
    for (let connection = list?.pop(); connection; connection = list?.pop()) {
      if (list!.length === 0) idle.delete(origin);
      if (connection.usable) return connection;
    }
    return undefined;
  }
}

/**
 * Where plain-TCP connections read into (Node's `onread`): one buffer for all of them, since a read is
 * parsed before the next one happens. Without it every read allocates its own backing store and goes
 * through the socket's Readable (push, a 'data' event); here the parser sees the bytes in place, and the
 * body pieces are lent to the handler as views (onData's `lent`), followed by onReadEnd: a relayed stream
 * writes them to its client from here, and only what a handler keeps past the read is copied.
 */
const READ_BUFFER = Buffer.allocUnsafeSlow(64 * 1024);

/** One socket to an origin, carrying one call at a time. */
class Http1Connection implements ResponseParts, IdleWatched {
  private readonly socket: Socket;
  private handler?: Http1Handler;
  private parser?: ResponseParser;
  private connectTimer?: NodeJS.Timeout;
  private headersTimer?: NodeJS.Timeout;
  private idleTimer?: NodeJS.Timeout;
  private bodyTimeoutMs = 0;
  /** The body progressed (a byte, or a line when byLines) since the last sweep. */
  private active = false;
  /** Only a piece that ends a line is progress (the handler's progressByLines). */
  private byLines = false;
  private silentMs = 0;
  private paused = false;
  /** Reads land in READ_BUFFER: body pieces are lent views of it. */
  private readonly sharedReads: boolean;

  constructor(
    private readonly pool: Http1Dispatcher,
    readonly origin: string,
    connectTimeoutMs: number,
    /** Opened under the public-only rule (its name resolved by publicOnlyLookup). */
    readonly publicOnly: boolean,
  ) {
    const url = new URL(origin);
    const secure = url.protocol === 'https:';
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const port = Number(url.port) || (secure ? 443 : 80);
    this.sharedReads = !secure;
    // Node's own lookup unless the call is public-only (a literal address was checked by the dispatcher).
    const lookup = publicOnly ? publicOnlyLookup : undefined;
    this.socket = secure
      ? tlsConnect({ host, port, lookup, servername: isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] })
      : netConnect({ host, port, lookup, onread: { buffer: READ_BUFFER, callback: (length) => this.readShared(length) } });
    this.socket.setNoDelay(true);
    // TCP keep-alive probes after a minute of silence, as undici's connector sets them.
    this.socket.setKeepAlive(true, 60_000);
    if (connectTimeoutMs > 0) {
      this.connectTimer = setTimeout(
        () => this.fail(new UpstreamError('connect', 'could not connect to upstream (connect timeout)')),
        connectTimeoutMs,
      );
    }
    this.socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(this.connectTimer));
    if (secure) this.socket.on('data', (data: Buffer) => this.read(data));
    // 'end' (and then 'close') is emitted only by a flowing stream, even though onread's data bypasses it.
    else this.socket.resume();
    this.socket.on('error', (error) => this.fail(toUpstreamError(error)));
    this.socket.on('close', () => this.closed());
  }

  /** Idle, open and not being closed by its server. */
  get usable(): boolean {
    return !this.handler && !this.socket.destroyed && this.socket.readyState === 'open';
  }

  send(request: Http1Request, handler: Http1Handler): void {
    clearTimeout(this.idleTimer);
    this.handler = handler;
    this.parser = new ResponseParser(this, request.method === 'HEAD');
    this.bodyTimeoutMs = request.bodyTimeout;
    this.paused = false;
    handler.onConnect(this.abort);
    if (this.handler !== handler) return;
    let head: RequestHead;
    try {
      head = requestHead(request);
    } catch (error) {
      this.fail(toUpstreamError(error));
      return;
    }
    const body = request.body;
    if (head.ascii && typeof body === 'string') {
      // One write: an ASCII head reads the same in UTF-8 (the usual case; a JSON body is a string).
      this.socket.write(head.text + body);
    } else {
      // The head in latin1 as undici writes it (a header value is bytes), the body as UTF-8.
      this.socket.cork();
      this.socket.write(head.text, 'latin1');
      if (body !== undefined) this.socket.write(body);
      this.socket.uncork();
    }
    this.timeHeaders(request.headersTimeout);
  }

  private timeHeaders(timeoutMs: number): void {
    if (timeoutMs <= 0) return;
    this.headersTimer = setTimeout(
      () => this.fail(new UpstreamError('timeout', 'upstream did not answer in time (first byte timeout)')),
      timeoutMs,
    );
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** Kept for `keepMs`, then closed. */
  idleFor(keepMs: number): void {
    this.idleTimer = setTimeout(() => {
      this.pool.forget(this);
      this.socket.destroy();
    }, keepMs);
    this.idleTimer.unref();
  }

  /** From the sweep: fails a body without progress for its idle timeout (a paused one is not timed, as in undici). */
  checkIdle(elapsedMs: number): void {
    this.silentMs = silenceAfter(this.silentMs, elapsedMs, this.active || this.paused);
    this.active = false;
    if (this.silentMs >= this.bodyTimeoutMs) this.fail(idleTimeoutError());
  }

  // ---- ResponseParts (from the parser, inside read()) ----

  head(status: number, rawHeaders: string[]): void {
    clearTimeout(this.headersTimer);
    const handler = this.handler;
    if (!handler) return;
    handler.onHeaders(status, rawHeaders, this.resume);
    if (this.handler === handler && this.bodyTimeoutMs > 0 && !this.parser!.done) {
      this.silentMs = 0;
      this.byLines = handler.progressByLines === true;
      watchIdle(this, this.bodyTimeoutMs);
    }
  }

  body(piece: Buffer): void {
    const handler = this.handler;
    if (!handler) return;
    // Pieces are searched for a line end only until one is found: the rest of the sweep interval costs nothing.
    if (!this.active) this.active = !this.byLines || endsLine(piece);
    if (!handler.onData(piece, this.sharedReads) && this.handler === handler && !this.paused) {
      this.paused = true;
      this.socket.pause();
    }
  }

  end(): void {
    // Completed in read(), once the whole read is parsed (bytes after the answer make the socket unusable).
  }

  // ---- socket events ----

  /** A plain-TCP read of `length` bytes into READ_BUFFER; false stops reading (the socket was paused meanwhile). */
  private readShared(length: number): boolean {
    // The length goes with the shared buffer: a view of it per read would be one more object per relayed chunk.
    this.read(READ_BUFFER, length);
    return !this.paused;
  }

  /** The first `length` bytes of `data` were read. */
  private read(data: Buffer, length = data.length): void {
    const parser = this.parser;
    if (!parser || !this.handler) {
      // Bytes nobody asked for (an idle connection): the connection is out of step.
      this.pool.forget(this);
      this.socket.destroy();
      return;
    }
    const handler = this.handler;
    try {
      parser.feed(data, length);
    } catch (error) {
      this.fail(new UpstreamError('bad_response', (error as Error).message));
      return;
    }
    if (this.handler === handler) handler.onReadEnd();
    if (parser.done) this.complete(parser);
  }

  private complete(parser: ResponseParser): void {
    const handler = this.handler;
    if (!handler) return;
    this.release();
    handler.onComplete([]);
    if (parser.keepAlive && !parser.extra && !this.socket.destroyed && this.socket.writableLength === 0) {
      if (this.paused) this.socket.resume();
      this.paused = false;
      this.pool.keep(this, parser.keepAliveHintMs);
    } else {
      this.socket.destroy();
    }
  }

  private closed(): void {
    clearTimeout(this.connectTimer);
    clearTimeout(this.idleTimer);
    this.pool.forget(this);
    const parser = this.parser;
    if (!this.handler || !parser) return;
    if (parser.inBody) {
      try {
        parser.close();
        this.complete(parser);
        return;
      } catch {
        // cut short: reported below
      }
    }
    this.fail(toUpstreamError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })));
  }

  private readonly resume = (): void => {
    if (!this.paused || !this.handler) return;
    this.paused = false;
    this.socket.resume();
  };

  private readonly abort = (reason?: Error): void => {
    this.fail(reason ? toUpstreamError(reason) : new UpstreamError('aborted', 'the request was aborted'));
  };

  /** Ends the call with `error`; the connection is closed (its state is unknown). */
  private fail(error: UpstreamError): void {
    const handler = this.handler;
    this.release();
    this.socket.destroy();
    handler?.onError(error);
  }

  private release(): void {
    this.handler = undefined;
    this.parser = undefined;
    clearTimeout(this.connectTimer);
    clearTimeout(this.headersTimer);
    unwatchIdle(this);
  }
}

/** The head of a request but its framing, kept per headers object (UpstreamClient prepares one per channel call shape). */
const heads = new WeakMap<Record<string, string>, { method: string; origin: string; path: string; head: string; ascii: boolean }>();

const NON_ASCII = /[\u0080-\uffff]/;

interface RequestHead {
  text: string;
  /** No byte above 0x7f: the same bytes in latin1 and UTF-8. */
  ascii: boolean;
}

/**
 * The request line and headers; throws on a header that would break the request's framing. A relay call's
 * head differs from the previous one's only in its Content-Length, so the rest (an origin parsed as a URL,
 * every header checked) is built once per headers object and method, origin and path.
 */
function requestHead(request: Http1Request): RequestHead {
  const { method, origin, path } = request;
  let kept = heads.get(request.headers);
  if (!kept || kept.method !== method || kept.origin !== origin || kept.path !== path) {
    const head = headWithoutFraming(request);
    kept = { method, origin, path, head, ascii: !NON_ASCII.test(head) };
    heads.set(request.headers, kept);
  }
  const text = request.body === undefined ? `${kept.head}\r\n` : `${kept.head}content-length: ${Buffer.byteLength(request.body)}\r\n\r\n`;
  return { text, ascii: kept.ascii };
}

function headWithoutFraming(request: Http1Request): string {
  const url = new URL(request.origin);
  let head = `${request.method} ${request.path} HTTP/1.1\r\n`;
  let host = url.host;
  for (const name in request.headers) {
    const value = request.headers[name];
    if (value === undefined) continue;
    if (!TOKEN.test(name) || BAD_VALUE.test(value)) throw new UpstreamError('connect', `upstream request failed: invalid ${name} header`);
    const lower = name.toLowerCase();
    if (lower === 'host') host = value;
    else if (!OWN_HEADERS.has(lower)) head += `${name}: ${value}\r\n`;
  }
  return `${head}host: ${host}\r\nconnection: keep-alive\r\n`;
}
