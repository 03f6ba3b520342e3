import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { SocketHandleWriter } from './socket-handle-writer.js';

/**
 * Writes an event stream's body. Once the head is sent, each write goes straight to the client's socket
 * as one HTTP/1.1 chunk (size line, data and CRLF in a single string: one write call) instead of through
 * ServerResponse.write, which costs a three-buffer writev and its bookkeeping per event; with thousands
 * of streams that was a large part of the gateway's CPU per relayed chunk. res.end() still writes the
 * last chunk, so keep-alive and the response's own state stay Node's. A response that does not own its
 * socket yet (pipelined requests) or does not use chunked encoding (HTTP/1.0) is written through res.
 *
 * While it writes, the socket's idle timeout (HTTP_IDLE_TIMEOUT) is off: Node re-arms that timer on every
 * write, a cost per relayed chunk, and a stream has its own limits on both sides (the upstream's body
 * timeout, the relay's write-idle timeout). release() puts it back for a response the caller still
 * writes; an ended response gets Node's keep-alive timeout as usual.
 *
 * On a plain TCP socket the chunks go to its handle (SocketHandleWriter), below the socket's Writable,
 * whenever the Writable holds nothing that must go first (the head, or a write of res that is still queued).
 */
export class EventStreamWriter {
  private socket?: Socket;
  private handleWriter?: SocketHandleWriter;
  /** The socket's idle timeout before start(), in ms (0: none). */
  private idleMs = 0;
  /**
   * The socket's Writable was seen empty, and nothing has been written through it since: only this writer
   * writes while the stream lasts, so its chunks may go to the handle without reading the Writable's state
   * (one more object, cold in the CPU cache with thousands of streams) for every chunk.
   */
  private direct = false;

  constructor(private readonly res: ServerResponse) {}

  start(headers: OutgoingHttpHeaders): void {
    this.res.writeHead(200, headers);
    this.res.flushHeaders();
    const socket = this.res.socket;
    // res.socket is set only while the response is the one its connection is answering.
    if (!socket?.writable || !this.res.chunkedEncoding) return;
    this.socket = socket;
    this.handleWriter = SocketHandleWriter.of(socket);
    this.idleMs = socket.timeout ?? 0;
    if (this.idleMs > 0) socket.setTimeout(0);
  }

  /** The stream is over: a response not ended yet (the caller writes an error, then ends it) has its idle timeout again. */
  release(): void {
    const socket = this.socket;
    if (!socket || this.idleMs === 0 || this.res.writableEnded || socket.destroyed) return;
    socket.setTimeout(this.idleMs);
  }

  /**
   * False when the client's buffer is full (wait for onDrain). `data` may be a view lent by the upstream's
   * read (see relayStream): it is copied here (framed) before anything can queue it.
   */
  write(data: string | Buffer): boolean {
    const socket = this.socket;
    if (!socket) return this.res.write(typeof data === 'string' ? data : Buffer.from(data));
    const handleWriter = this.handleWriter;
    if (handleWriter && (this.direct || socket.writableLength === 0)) {
      this.direct = true;
      if (handleWriter.closed) return true;
      return handleWriter.write(typeof data === 'string' ? Buffer.from(textChunk(data), 'utf8') : httpChunk(data));
    }
    if (socket.destroyed) return true;
    this.direct = false;
    if (typeof data === 'string') return socket.write(textChunk(data));
    return socket.write(httpChunk(data));
  }

  /** Bytes accepted but not yet handed to the kernel. */
  get queued(): number {
    if (!this.socket) return this.res.writableLength;
    return this.socket.writableLength + (this.handleWriter?.queued ?? 0);
  }

  onceDrain(listener: () => void): void {
    if (this.handleWriter?.waiting) this.handleWriter.onceDrain(listener);
    else (this.socket ?? this.res).once('drain', listener);
  }

  offDrain(listener: () => void): void {
    this.handleWriter?.offDrain(listener);
    (this.socket ?? this.res).off('drain', listener);
  }
}

/** Text framed as one HTTP/1.1 chunk. */
function textChunk(text: string): string {
  return `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
}

/**
 * Bytes framed as one HTTP/1.1 chunk in a single buffer (small ones come from Node's shared pool): one
 * write, no string to encode, and no three-buffer writev. The size line is written byte by byte and the
 * data with TypedArray set: Buffer.write and Buffer.copy check their arguments in JavaScript on every call,
 * which cost more than the copy itself for a chunk of a few hundred bytes.
 */
function httpChunk(data: Buffer): Buffer {
  const length = data.length;
  let digits = 1;
  for (let rest = length >>> 4; rest > 0; rest >>>= 4) digits++;
  const framed = Buffer.allocUnsafe(digits + length + 4);
  for (let i = digits - 1, rest = length; i >= 0; i--, rest >>>= 4) framed[i] = HEX_DIGITS[rest & 0xf]!;
  framed[digits] = CR;
  framed[digits + 1] = LF;
  framed.set(data, digits + 2);
  framed[digits + 2 + length] = CR;
  framed[digits + 3 + length] = LF;
  return framed;
}

const CR = 0x0d;
const LF = 0x0a;
/** ASCII codes of the hexadecimal digits (HTTP chunk sizes are hex). */
const HEX_DIGITS = Buffer.from('0123456789abcdef');
