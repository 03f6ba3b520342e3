import type { Socket } from 'node:net';

/** The libuv TCP handle behind a net.Socket (Node's `socket._handle`), as far as this writer uses it. */
interface TcpHandle {
  writeBuffer(request: object, data: Uint8Array): number;
  /** Bytes libuv holds for the kernel (a write the kernel did not take whole). */
  readonly writeQueueSize: number;
}

/** Node's own write request object and the state its handles report each write in (the `stream_wrap` binding). */
interface StreamWrapBinding {
  WriteWrap: new () => WriteRequest;
  streamBaseState: Int32Array;
  kLastWriteWasAsync: number;
}

interface WriteRequest {
  handle?: TcpHandle;
  oncomplete?: (this: WriteRequest, status: number) => void;
  writer?: SocketHandleWriter;
  /** Keeps the bytes alive while libuv still points into them. */
  buffer?: Uint8Array;
}

/** Node's binding, or undefined where this Node does not expose it (then sockets are written through net.Socket). */
const binding = loadBinding();

function loadBinding(): StreamWrapBinding | undefined {
  try {
    const loaded = (process as unknown as { binding(name: string): Partial<StreamWrapBinding> }).binding('stream_wrap');
    const usable = typeof loaded.WriteWrap === 'function' && loaded.streamBaseState instanceof Int32Array;
    return usable && typeof loaded.kLastWriteWasAsync === 'number' ? (loaded as StreamWrapBinding) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A write request for the next write that completes at once. The kernel takes a relayed chunk whole almost
 * always, and then Node creates nothing for the request object, so one serves every such write of the
 * process; a write libuv has to queue keeps its request until it completes, and the next write gets a new one.
 */
let spare: WriteRequest | undefined;

/**
 * Writes bytes to a plain TCP socket's handle, as net.Socket does underneath, without its Writable: no
 * write request object, callback bookkeeping and nextTick per write. With thousands of streams that was
 * about a tenth of the gateway's CPU per relayed chunk. Only for bytes that may go before anything the
 * socket's Writable still holds (EventStreamWriter checks that it holds nothing): libuv keeps the order of
 * what reaches the handle. A write the kernel does not take whole is queued by libuv and reported by
 * write() returning false; onceDrain() hears when every such write has completed.
 */
export class SocketHandleWriter {
  private inFlight = 0;
  private drained?: () => void;

  private constructor(
    private readonly socket: Socket,
    private readonly handle: TcpHandle,
  ) {}

  /** A writer for `socket`, or undefined when it is not a plain TCP socket or this Node lacks the binding. */
  static of(socket: Socket): SocketHandleWriter | undefined {
    const handle = (socket as unknown as { _handle?: Partial<TcpHandle> })._handle;
    if (!binding || (socket as { encrypted?: boolean }).encrypted || typeof handle?.writeBuffer !== 'function') return undefined;
    return new SocketHandleWriter(socket, handle as TcpHandle);
  }

  /** The socket's handle is gone (destroyed or closed). */
  get closed(): boolean {
    return (this.socket as unknown as { _handle?: unknown })._handle !== this.handle;
  }

  /** Bytes libuv still holds for the kernel. */
  get queued(): number {
    return this.closed ? 0 : this.handle.writeQueueSize;
  }

  get waiting(): boolean {
    return this.inFlight > 0;
  }

  /** False when libuv had to queue part of `bytes` (the client's socket buffer is full): wait for onceDrain. */
  write(bytes: Uint8Array): boolean {
    if (this.closed) return true;
    const request = spare ?? newRequest();
    spare = undefined;
    const error = this.handle.writeBuffer(request, bytes);
    if (error !== 0) {
      spare = request;
      this.socket.destroy(writeError(error));
      return true;
    }
    if (binding!.streamBaseState[binding!.kLastWriteWasAsync] === 0) {
      spare = request;
      return true;
    }
    request.writer = this;
    request.buffer = bytes;
    this.inFlight++;
    return false;
  }

  onceDrain(listener: () => void): void {
    this.drained = listener;
  }

  offDrain(listener: () => void): void {
    if (this.drained === listener) this.drained = undefined;
  }

  /** A queued write completed (status < 0: failed, or cancelled by the socket's close). */
  completed(status: number): void {
    this.inFlight--;
    if (status < 0) {
      if (!this.socket.destroyed) this.socket.destroy(writeError(status));
      return;
    }
    if (this.inFlight > 0) return;
    const drained = this.drained;
    this.drained = undefined;
    drained?.();
  }
}

/** A queued write's end: Node calls a request's oncomplete with the request as `this`. */
function onWriteComplete(this: WriteRequest, status: number): void {
  const writer = this.writer;
  this.writer = undefined;
  this.buffer = undefined;
  writer?.completed(status);
}

/** A libuv error code (negative errno) as the socket's error. */
function writeError(code: number): Error {
  return Object.assign(new Error(`write failed (libuv error ${code})`), { errno: code, syscall: 'write' });
}

function newRequest(): WriteRequest {
  const request = new binding!.WriteWrap();
  request.oncomplete = onWriteComplete;
  return request;
}
