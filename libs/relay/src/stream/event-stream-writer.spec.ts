import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    const server = createServer((req, res) => {
      seen.before = req.socket.timeout;
      const out = new EventStreamWriter(res);
      out.start({ 'Content-Type': 'text/event-stream' });
      seen.streaming = req.socket.timeout;
      out.write('data: {"n":1}\n\n');
      out.release();
      seen.released = req.socket.timeout;
      res.end('data: {"error":"late"}\n\n');
    });
    server.setTimeout(45_000);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const res = await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { method: 'POST', body: '{}' });
    expect(await res.body.text()).toBe('data: {"n":1}\n\ndata: {"error":"late"}\n\n');
    await new Promise((resolve) => server.close(resolve));
    expect(seen).toEqual({ before: 45_000, streaming: 0, released: 45_000 });
  });
});
