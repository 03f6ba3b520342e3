import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Writes an event stream's body. Once the head is sent, each write goes straight to the client's socket
 * as one HTTP/1.1 chunk (size line, data and CRLF in a single string: one write call) instead of through
 * ServerResponse.write, which costs a three-buffer writev and its bookkeeping per event; with thousands
 * of streams that was a large part of the gateway's CPU per relayed chunk. res.end() still writes the
 * last chunk, so keep-alive and the response's own state stay Node's. A response that does not own its
 * socket yet (pipelined requests) or does not use chunked encoding (HTTP/1.0) is written through res.
 */
export class EventStreamWriter {
  private socket?: Socket;

  constructor(private readonly res: ServerResponse) {}

  start(headers: OutgoingHttpHeaders): void {
    this.res.writeHead(200, headers);
    this.res.flushHeaders();
    const socket = this.res.socket;
    // res.socket is set only while the response is the one its connection is answering.
    if (socket?.writable && this.res.chunkedEncoding) this.socket = socket;
  }

  /** False when the client's buffer is full (wait for onDrain). */
  write(data: string | Buffer): boolean {
    const socket = this.socket;
    if (!socket) return this.res.write(data);
    if (socket.destroyed) return true;
    if (typeof data === 'string') return socket.write(`${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`);
    return socket.write(httpChunk(data));
  }

  /** Bytes accepted but not yet handed to the kernel. */
  get queued(): number {
    return this.socket ? this.socket.writableLength : this.res.writableLength;
  }

  onceDrain(listener: () => void): void {
    (this.socket ?? this.res).once('drain', listener);
  }

  offDrain(listener: () => void): void {
    (this.socket ?? this.res).off('drain', listener);
  }
}

/**
 * Bytes framed as one HTTP/1.1 chunk in a single buffer (small ones come from Node's shared pool): one
 * write, no string to encode, and no three-buffer writev.
 */
function httpChunk(data: Buffer): Buffer {
  const size = data.length.toString(16);
  const framed = Buffer.allocUnsafe(size.length + data.length + 4);
  let at = framed.write(size, 0, 'latin1');
  framed[at++] = 0x0d;
  framed[at++] = 0x0a;
  at += data.copy(framed, at);
  framed[at++] = 0x0d;
  framed[at] = 0x0a;
  return framed;
}
