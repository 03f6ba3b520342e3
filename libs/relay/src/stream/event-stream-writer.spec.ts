import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EventStreamWriter } from './event-stream-writer.js';

/** An event of 0x1a2b3 bytes: an HTTP chunk size of several hex digits. */
const LONG_EVENT = `data: ${'x'.repeat(0x1a2b3 - 8)}\n\n`;

describe('EventStreamWriter', () => {
  let server: Server;
  let origin: string;
  const sockets = new Set<unknown>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      sockets.add(req.socket);
      const out = new EventStreamWriter(res);
      out.start({ 'Content-Type': 'text/event-stream' });
      out.write('data: {"n":"é1"}\n\n');
      out.write(Buffer.from('data: {"n":"ü2"}\n\n'));
      out.write(Buffer.from(LONG_EVENT));
      out.write('data: [DONE]\n\n');
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('writes valid HTTP/1.1 chunks (text or bytes) straight to the socket, and the connection is reused afterwards', async () => {
    const agent = new Agent({ connections: 1 });
    for (let i = 0; i < 2; i++) {
      const res = await request(origin, { method: 'POST', body: '{}', dispatcher: agent });
      expect(res.headers['transfer-encoding']).toBe('chunked');
      expect(await res.body.text()).toBe(`data: {"n":"é1"}\n\ndata: {"n":"ü2"}\n\n${LONG_EVENT}data: [DONE]\n\n`);
    }
    expect(sockets.size).toBe(1);
    await agent.close();
  });
});

describe('EventStreamWriter idle timeout', () => {
  it("turns the socket's idle timeout off while it streams and puts it back for a response the caller still writes", async () => {
    const seen: Record<string, number | undefined> = {};
    const body = await servedBody((req, res) => {
      seen.before = req.socket.timeout;
      const out = new EventStreamWriter(res);
      out.start({ 'Content-Type': 'text/event-stream' });
      seen.streaming = req.socket.timeout;
      out.write('data: {"n":1}\n\n');
      out.release();
      seen.released = req.socket.timeout;
      res.end('data: {"error":"late"}\n\n');
    }, 45_000);
    expect(body).toBe('data: {"n":1}\n\ndata: {"error":"late"}\n\n');
    expect(seen).toEqual({ before: 45_000, streaming: 0, released: 45_000 });
  });
});

describe('EventStreamWriter on a plain TCP socket', () => {
  it("writes the chunks to the socket's handle, not through the socket's Writable", async () => {
    let socketWrites = -1;
    const body = await servedBody((req, res) => {
      const out = new EventStreamWriter(res);
      out.start({ 'Content-Type': 'text/event-stream' });
      const counted = req.socket.write.bind(req.socket);
      let writes = 0;
      req.socket.write = ((...args: Parameters<typeof counted>) => {
        writes++;
        return counted(...args);
      }) as typeof req.socket.write;
      out.write('data: {"n":1}\n\n');
      out.write(Buffer.from('data: {"n":2}\n\n'));
      socketWrites = writes;
      res.end();
    });
    expect(body).toBe('data: {"n":1}\n\ndata: {"n":2}\n\n');
    expect(socketWrites).toBe(0);
  });

  it("reads the socket's Writable state until it has seen it empty, not for every chunk", async () => {
    let lengthReads = -1;
    const body = await servedBody((req, res) => {
      const out = new EventStreamWriter(res);
      out.start({ 'Content-Type': 'text/event-stream' });
      const socket = req.socket;
      const length = inheritedGetter(socket, 'writableLength');
      let reads = 0;
      Object.defineProperty(socket, 'writableLength', {
        configurable: true,
        get() {
          reads++;
          return length.call(this);
        },
      });
      for (let n = 1; n <= 3; n++) out.write(`data: {"n":${n}}\n\n`);
      lengthReads = reads;
      res.end();
    });
    expect(body).toBe('data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n":3}\n\n');
    expect(lengthReads).toBe(1);
  });

  it('reports a full client buffer, hears its drain, and keeps every byte in order (res.end after queued chunks)', async () => {
    const event = (n: number) => `data: ${String(n).padStart(6, '0')}${'x'.repeat(16 * 1024)}\n\n`;
    const seen: { writes: number; queued: number; drained: boolean } = { writes: 0, queued: 0, drained: false };
    let serverSide: { out: EventStreamWriter; res: ServerResponse } | undefined;
    const server = createServer((_req, res) => {
      const out = new EventStreamWriter(res);
      out.start({ 'Content-Type': 'text/event-stream' });
      serverSide = { out, res };
      // Until the client's socket and ours are full (the client does not read yet).
      while (out.write(Buffer.from(event(seen.writes)))) seen.writes++;
      seen.writes++;
      seen.queued = out.queued;
      out.onceDrain(() => {
        seen.drained = true;
        out.write(event(seen.writes++));
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.pause();
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    await vi.waitFor(() => expect(seen.queued).toBeGreaterThan(0));
    expect(seen.drained).toBe(false);
    const received: Buffer[] = [];
    socket.on('data', (data: Buffer) => received.push(data));
    socket.resume();
    await new Promise((resolve) => socket.once('end', resolve));
    await new Promise((resolve) => server.close(resolve));
    expect(seen.drained).toBe(true);
    expect(serverSide?.res.writableFinished).toBe(true);
    const text = Buffer.concat(received).toString('latin1');
    const body = decodeChunked(text.slice(text.indexOf('\r\n\r\n') + 4));
    expect(body).toBe(Array.from({ length: seen.writes }, (_, n) => event(n)).join(''));
  });
});

/**
 * Answers one POST with `handle` on a server of its own (idle timeout `timeoutMs` when given) and returns the
 * body the client read; the server is closed before it returns.
 */
async function servedBody(handle: (req: IncomingMessage, res: ServerResponse) => void, timeoutMs?: number): Promise<string> {
  const server = createServer(handle);
  if (timeoutMs !== undefined) server.setTimeout(timeoutMs);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { method: 'POST', body: '{}' });
    return await res.body.text();
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/** The getter `name` of `object`'s prototype chain. */
function inheritedGetter(object: object, name: string): () => unknown {
  for (let proto = Object.getPrototypeOf(object); proto; proto = Object.getPrototypeOf(proto)) {
    const getter = Object.getOwnPropertyDescriptor(proto, name)?.get;
    if (getter) return getter;
  }
  throw new Error(`no getter ${name}`);
}

/** The payload of an HTTP/1.1 chunked body (the whole body, ending with its last chunk). */
function decodeChunked(body: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.slice(at, lineEnd), 16);
    if (size === 0) return out;
    out += body.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}
