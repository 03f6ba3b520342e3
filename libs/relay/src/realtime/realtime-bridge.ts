import type { RawData, WebSocket } from 'ws';
import type { RelayError } from '../pipeline/relay-error.js';
import type { AudioUsage } from '../pricing/billing-formulas.js';
import { errorEvent } from './realtime-handshake.js';
import { readResponseDone } from './realtime-usage.js';

/** Bytes queued for one side before the other side's reads pause (each side's own socket buffer comes on top). */
const HIGH_WATER_BYTES = 1024 * 1024;

/** What the bridge reports to the session's meter. */
export interface BridgeMeter {
  /** A text frame of the client's, as it is sent on to the provider. */
  clientFrame(frame: Buffer): void;
  /** A frame of the provider's, as it is sent on to the client (`text` for a text frame). */
  upstreamFrame(text?: Buffer): void;
  /**
   * A `response.done` (`usage` undefined when it has none): its billing, during which the provider is not read;
   * an error ends the session.
   */
  responseDone(usage: AudioUsage | undefined): Promise<RelayError | undefined>;
}

export interface BridgeOptions {
  requestId: string;
  /** A session with no frame either way (pings included) for this long is closed. */
  idleMs: number;
  /** A provider's text frame as the client may see it (the channel's keys masked). */
  redact: (frame: Buffer) => Buffer | string;
}

/** Close codes a peer may send (1005 and 1006 only describe a close, 1015 a TLS failure). */
function sendable(code: number): boolean {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

/** A close reason within the 123 bytes a close frame carries. */
function shortReason(reason: Buffer | string): string {
  const text = reason.toString();
  return Buffer.byteLength(text) <= 123 ? text : '';
}

/**
 * The two WebSockets of one Realtime session, frame for frame in both directions: text and binary frames pass
 * as they are (the provider's text with the channel's keys masked), each `response.done` is billed before the
 * provider is read again (so nothing of the next response reaches the client before its reservation), a side
 * that does not read pauses the other, and the session ends as soon as either side closes, the session goes
 * idle, billing refuses it, or the gateway shuts down. `done` resolves when both sockets are closed.
 */
export class RealtimeBridge {
  readonly done: Promise<void>;
  private ended = false;
  private readonly upstreamQueue: { data: Buffer; binary: boolean }[] = [];
  private billing = false;
  private clientFull = false;
  private upstreamFull = false;
  private readonly idle: NodeJS.Timeout;

  constructor(
    private readonly client: WebSocket,
    private readonly upstream: WebSocket,
    private readonly meter: BridgeMeter,
    private readonly options: BridgeOptions,
  ) {
    const closed = (socket: WebSocket) =>
      new Promise<void>((resolve) => (socket.readyState === socket.CLOSED ? resolve() : socket.once('close', () => resolve())));
    this.done = Promise.all([closed(client), closed(upstream)]).then(() => undefined);
    this.idle = setTimeout(() => this.end(1001, 'idle timeout'), options.idleMs);
    this.idle.unref();
    client.on('message', (data, binary) => this.fromClient(data, binary));
    upstream.on('message', (data, binary) => this.fromUpstream(data, binary));
    for (const event of ['ping', 'pong'] as const) client.on(event, this.touch);
    client.on('close', (code, reason) => this.peerClosed(upstream, code, reason, 1000));
    upstream.on('close', (code, reason) => this.peerClosed(client, code, reason, 1011));
    // A socket error is followed by its close event, which ends the session.
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    // The provider's socket comes paused (what it sent before the switch waits in its buffer).
    this.flow();
  }

  /** Ends the session from the gateway's side (shutdown), both sockets closed with `code`. */
  end(code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.idle);
    this.upstreamQueue.length = 0;
    closeSocket(this.client, code, reason);
    closeSocket(this.upstream, 1000, '');
  }

  private readonly touch = (): void => {
    this.idle.refresh();
  };

  private fromClient(data: RawData, binary: boolean): void {
    if (this.ended) return;
    this.touch();
    const frame = data as Buffer;
    if (!binary) this.meter.clientFrame(frame);
    this.upstream.send(frame, { binary }, () => this.drained());
    if (this.upstream.bufferedAmount > HIGH_WATER_BYTES) {
      this.upstreamFull = true;
      this.flow();
    }
  }

  private fromUpstream(data: RawData, binary: boolean): void {
    if (this.ended) return;
    this.touch();
    this.upstreamQueue.push({ data: data as Buffer, binary });
    this.pump();
  }

  /** Forwards the provider's frames in order, stopping at a `response.done` until it is billed. */
  private pump(): void {
    while (!this.billing && !this.ended && this.upstreamQueue.length > 0) {
      const { data, binary } = this.upstreamQueue.shift()!;
      this.meter.upstreamFrame(binary ? undefined : data);
      this.client.send(binary ? data : this.options.redact(data), { binary }, () => this.drained());
      if (this.client.bufferedAmount > HIGH_WATER_BYTES) this.clientFull = true;
      const done = binary ? undefined : readResponseDone(data);
      if (done) {
        this.billing = true;
        this.meter.responseDone(done.usage).then(
          (refusal) => this.billed(refusal),
          () => this.billed(undefined),
        );
      }
    }
    this.flow();
  }

  private billed(refusal: RelayError | undefined): void {
    this.billing = false;
    if (this.ended) return;
    if (refusal) {
      // new-api ends the session when quota runs out at a response.done; the client is told why first.
      this.client.send(errorEvent(refusal, this.options.requestId));
      this.end(1008, 'insufficient quota');
      return;
    }
    this.pump();
  }

  /** A send was flushed: the side that waited for it may be read again. */
  private drained(): void {
    if (this.clientFull && this.client.bufferedAmount <= HIGH_WATER_BYTES) this.clientFull = false;
    if (this.upstreamFull && this.upstream.bufferedAmount <= HIGH_WATER_BYTES) this.upstreamFull = false;
    this.flow();
  }

  /** The provider is read unless a response is being billed or the client is behind; the client unless the provider is. */
  private flow(): void {
    if (this.ended) return;
    if (this.billing || this.clientFull) this.upstream.pause();
    else this.upstream.resume();
    if (this.upstreamFull) this.client.pause();
    else this.client.resume();
  }

  private peerClosed(other: WebSocket, code: number, reason: Buffer, fallback: number): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.idle);
    this.upstreamQueue.length = 0;
    if (code === 1005) closeSocket(other, 1000, '');
    else if (sendable(code)) closeSocket(other, code, shortReason(reason));
    else closeSocket(other, fallback, fallback === 1011 ? 'upstream connection lost' : '');
  }
}

/** Closes one side; it is read again first, or its close handshake would wait for the close timeout. */
function closeSocket(socket: WebSocket, code: number, reason: string): void {
  socket.resume();
  if (socket.readyState === socket.CLOSED || socket.readyState === socket.CLOSING) return;
  try {
    socket.close(code, reason);
  } catch {
    socket.terminate();
  }
}
