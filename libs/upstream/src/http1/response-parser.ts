/** What the parser reports, in order: one head (after any 1xx heads, which are skipped), body pieces, the end. */
export interface ResponseParts {
  head(status: number, rawHeaders: string[]): void;
  body(piece: Buffer): void;
  end(): void;
}

/** The upstream broke HTTP/1.1 (a bad status line, header or chunk size): the connection cannot be trusted. */
export class ResponseProtocolError extends Error {
  constructor(message: string) {
    super(`upstream sent an invalid HTTP response (${message})`);
    this.name = 'ResponseProtocolError';
  }
}

const CR = 0x0d;
const LF = 0x0a;
/** A head larger than this is refused (undici's default limit is 16 KB). */
const MAX_HEAD_BYTES = 64 * 1024;
/** A chunk size line or a trailer line longer than this is refused. */
const MAX_LINE_BYTES = 8 * 1024;

enum State {
  Head,
  Fixed,
  UntilClose,
  ChunkSize,
  /** A chunk extension (or spaces) after the size: skipped to the line end. */
  ChunkExtension,
  ChunkData,
  /** The CRLF after a chunk's data. */
  ChunkDataEnd,
  Trailers,
  Done,
}

/** The value of an ASCII hexadecimal digit, or -1. */
function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/**
 * An incremental HTTP/1.1 response reader for one response on a connection: the head (status and raw
 * header list), then the body by its framing (Content-Length, chunked, or until the connection closes).
 * Body pieces are views of the bytes fed in, not copies: a relayed stream's usual read (one chunk's size
 * line, its data and CRLF) costs a few byte comparisons and one subarray. Lenient where RFC 9112 allows
 * (a bare LF ends a line), strict where a mistake would desynchronise the connection (sizes, lengths).
 */
export class ResponseParser {
  private state = State.Head;
  private head: Buffer[] = [];
  private headBytes = 0;
  /** Bytes left of a Content-Length body or of the current chunk. */
  private remaining = 0;
  private sizeDigits = 0;
  private lineBytes = 0;
  /** The last trailer line was empty so far (a blank line ends the trailers). */
  private trailerLineEmpty = true;
  /** Bytes that came after the end of the response (the connection must not be reused). */
  extra = false;
  /** The response allows its connection to carry the next request. */
  keepAlive = true;
  /** The server's keep-alive hint (`Keep-Alive: timeout=N`) in ms, when it gave one. */
  keepAliveHintMs?: number;

  constructor(
    private readonly parts: ResponseParts,
    /** A HEAD request's answer has no body whatever its headers say. */
    private readonly noBody = false,
  ) {}

  get done(): boolean {
    return this.state === State.Done;
  }

  /** The head has been read (body pieces may follow). */
  get inBody(): boolean {
    return this.state !== State.Head;
  }

  /**
   * Feeds the first `length` bytes of `data`, read from the connection; throws ResponseProtocolError on
   * malformed input. Body pieces are views of `data`, valid only during the call; nothing else of `data`
   * is kept after it returns.
   */
  feed(data: Buffer, length = data.length): void {
    if (this.state !== State.Head) {
      // The first `length` bytes, without a view of them: a connection's reads share one buffer.
      this.readBody(data, 0, length);
      return;
    }
    const rest = this.readHead(length === data.length ? data : data.subarray(0, length));
    if (rest && rest.length > 0) this.readBody(rest, 0, rest.length);
  }

  /** The connection closed: ends a body read until close; anything else unfinished is an error. */
  close(): void {
    if (this.state === State.UntilClose) {
      this.finish();
      return;
    }
    if (this.state !== State.Done) throw new ResponseProtocolError('the connection closed before the response ended');
  }

  /** Gathers the head; returns the bytes after it, or undefined when the head is not complete yet. */
  private readHead(data: Buffer): Buffer | undefined {
    for (;;) {
      const previous = this.headBytes;
      this.head.push(data);
      this.headBytes += data.length;
      const gathered = this.head.length === 1 ? data : Buffer.concat(this.head, this.headBytes);
      // Search from just before the new bytes: the blank line may straddle two reads.
      const from = Math.max(0, previous - 3);
      let end = -1;
      let bodyAt = -1;
      for (let i = gathered.indexOf(LF, from); i >= 0; i = gathered.indexOf(LF, i + 1)) {
        if (gathered[i + 1] === LF) {
          end = i;
          bodyAt = i + 2;
          break;
        }
        if (gathered[i + 1] === CR && gathered[i + 2] === LF) {
          end = i;
          bodyAt = i + 3;
          break;
        }
      }
      if (end < 0) {
        if (this.headBytes > MAX_HEAD_BYTES) throw new ResponseProtocolError('the head is too large');
        // Kept as a copy: `data` may be a view of a read buffer that the next read overwrites.
        this.head = [Buffer.from(gathered)];
        return undefined;
      }
      this.head = [];
      this.headBytes = 0;
      const status = this.parseHead(gathered.toString('latin1', 0, end));
      const rest = gathered.subarray(bodyAt);
      // An interim answer (100 Continue, 103 Early Hints): the real head follows.
      if (status >= 100 && status < 200) {
        if (rest.length === 0) return undefined;
        data = rest;
        continue;
      }
      return rest;
    }
  }

  /** Parses the status line and headers, reports the head, and chooses the body's framing. */
  private parseHead(text: string): number {
    const lines = text.split('\n');
    const statusLine = stripCr(lines[0]!);
    const match = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(statusLine);
    if (!match) throw new ResponseProtocolError('bad status line');
    const status = Number(match[2]);
    const raw: string[] = [];
    let contentLength: number | undefined;
    let chunked = false;
    let hasTransferEncoding = false;
    let connection = '';
    for (let i = 1; i < lines.length; i++) {
      const line = stripCr(lines[i]!);
      const colon = line.indexOf(':');
      if (colon <= 0 || line.charCodeAt(0) === 0x20 || line.charCodeAt(0) === 0x09) throw new ResponseProtocolError('bad header line');
      const name = line.slice(0, colon);
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new ResponseProtocolError('bad header name');
      const value = line.slice(colon + 1).trim();
      raw.push(name, value);
      const lower = name.toLowerCase();
      if (lower === 'content-length') {
        if (!/^\d+$/.test(value)) throw new ResponseProtocolError('bad content-length');
        const length = Number(value);
        if (contentLength !== undefined && contentLength !== length) throw new ResponseProtocolError('conflicting content-length');
        contentLength = length;
      } else if (lower === 'transfer-encoding') {
        hasTransferEncoding = true;
        chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
      } else if (lower === 'connection') {
        connection += `${value.toLowerCase()},`;
      } else if (lower === 'keep-alive') {
        const timeout = /timeout=(\d+)/i.exec(value);
        if (timeout) this.keepAliveHintMs = Number(timeout[1]) * 1000;
      }
    }
    if (status < 200) return status;
    if (match[1] === '0' ? !connection.includes('keep-alive') : connection.includes('close')) this.keepAlive = false;
    this.parts.head(status, raw);
    if (this.noBody || status === 204 || status === 304) {
      this.finish();
    } else if (hasTransferEncoding) {
      // A transfer coding that is not chunked at the end runs until the connection closes (RFC 9112 6.3).
      if (chunked) this.state = State.ChunkSize;
      else {
        this.state = State.UntilClose;
        this.keepAlive = false;
      }
    } else if (contentLength !== undefined) {
      this.remaining = contentLength;
      this.state = State.Fixed;
      if (contentLength === 0) this.finish();
    } else {
      this.state = State.UntilClose;
      this.keepAlive = false;
    }
    return status;
  }

  /** Reads the body from `data[at, length)`. */
  private readBody(data: Buffer, at: number, length: number): void {
    const whole = length === data.length;
    while (at < length) {
      switch (this.state) {
        case State.ChunkSize: {
          const byte = data[at++]!;
          const digit = hexValue(byte);
          if (digit >= 0) {
            // 13 hex digits stay a safe integer: no chunk is that large.
            if (++this.sizeDigits > 13) throw new ResponseProtocolError('chunk size too large');
            this.remaining = this.remaining * 16 + digit;
          } else if (this.sizeDigits === 0) {
            throw new ResponseProtocolError('bad chunk size');
          } else if (byte === LF) {
            this.endSizeLine();
          } else if (byte === CR || byte === 0x3b || byte === 0x20 || byte === 0x09) {
            this.state = State.ChunkExtension;
            this.lineBytes = 0;
          } else {
            throw new ResponseProtocolError('bad chunk size');
          }
          break;
        }
        case State.ChunkExtension: {
          if (data[at++] === LF) this.endSizeLine();
          else if (++this.lineBytes > MAX_LINE_BYTES) throw new ResponseProtocolError('chunk extension too long');
          break;
        }
        case State.ChunkData: {
          const take = Math.min(this.remaining, length - at);
          this.remaining -= take;
          if (this.remaining === 0) this.state = State.ChunkDataEnd;
          this.parts.body(at === 0 && take === length && whole ? data : data.subarray(at, at + take));
          at += take;
          break;
        }
        case State.ChunkDataEnd: {
          const byte = data[at++];
          if (byte === LF) this.state = State.ChunkSize;
          else if (byte !== CR) throw new ResponseProtocolError('missing CRLF after chunk data');
          break;
        }
        case State.Trailers: {
          const byte = data[at++];
          if (byte === LF) {
            if (this.trailerLineEmpty) {
              this.finish();
              break;
            }
            this.trailerLineEmpty = true;
            this.lineBytes = 0;
          } else if (byte !== CR) {
            this.trailerLineEmpty = false;
            if (++this.lineBytes > MAX_LINE_BYTES) throw new ResponseProtocolError('trailer too long');
          }
          break;
        }
        case State.Fixed: {
          const take = Math.min(this.remaining, length - at);
          this.remaining -= take;
          const piece = at === 0 && take === length && whole ? data : data.subarray(at, at + take);
          at += take;
          this.parts.body(piece);
          if (this.remaining === 0) this.finish();
          break;
        }
        case State.UntilClose: {
          this.parts.body(at === 0 && whole ? data : data.subarray(at, length));
          return;
        }
        case State.Done: {
          this.extra = true;
          return;
        }
        case State.Head:
          // Not reached: feed() reads the head first.
          return;
      }
    }
  }

  private endSizeLine(): void {
    this.sizeDigits = 0;
    if (this.remaining === 0) {
      this.state = State.Trailers;
      this.trailerLineEmpty = true;
      this.lineBytes = 0;
    } else {
      this.state = State.ChunkData;
    }
  }

  private finish(): void {
    this.state = State.Done;
    this.parts.end();
  }
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
