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
  write(text: string): boolean {
    const socket = this.socket;
    if (!socket) return this.res.write(text);
    if (socket.destroyed) return true;
    return socket.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
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
