import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Http1Request, Http1Dispatcher } from './dispatcher.js';

interface Answer {
  status: number;
  headers: string[];
  body: string;
}

/** One call through the dispatcher, collected whole. */
function call(dispatcher: Http1Dispatcher, request: Partial<Http1Request> & { origin: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const answer: Answer = { status: 0, headers: [], body: '' };
    dispatcher.dispatch(
      { path: '/', method: 'POST', headers: {}, body: '{}', headersTimeout: 2000, bodyTimeout: 2000, ...request },
      {
        onConnect: () => undefined,
        onHeaders: (status, raw) => {
          answer.status = status;
          answer.headers = raw;
          return true;
        },
        onData: (chunk) => {
          answer.body += chunk.toString();
          return true;
        },
        onReadEnd: () => undefined,
        onComplete: () => resolve(answer),
        onError: reject,
      },
    );
  });
}

describe('Http1Dispatcher', () => {
  let server: Server;
  let origin: string;
  let connections = 0;
  const seen: { method?: string; url?: string; headers: Record<string, unknown>; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (part) => (body += part));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        if (req.url === '/close') res.setHeader('connection', 'close');
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (req.url === '/apart') {
          // Each event in a read of its own, so each lands at the same place of a reused read buffer.
          res.flushHeaders();
          setTimeout(() => res.write('data: one\n\n'), 20);
          setTimeout(() => res.end('data: two\n\n'), 40);
          return;
        }
        res.write('data: one\n\n');
        res.end('data: two\n\n');
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the request as given and reads a chunked answer', async () => {
    const dispatcher = new Http1Dispatcher({ connectTimeoutMs: 2000, keepAliveMs: 30_000 });
    seen.length = 0;
    const answer = await call(dispatcher, {
      origin,
      path: '/v1/chat?x=1',
      headers: { authorization: 'Bearer k', 'x-extra': 'é' },
      body: '{"ü":1}',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('data: one\n\ndata: two\n\n');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/chat?x=1', body: '{"ü":1}' });
    // The body's length in UTF-8 bytes; a header value goes out as latin1 bytes (as undici writes it).
    expect(seen[0]!.headers).toMatchObject({ authorization: 'Bearer k', 'x-extra': 'é', 'content-length': '8', host: origin.slice(7) });
    dispatcher.close();
  });

  it('builds the head kept for a headers object afresh when the method, path or origin change, and frames each body', async () => {
    const dispatcher = new Http1Dispatcher({ connectTimeoutMs: 2000, keepAliveMs: 30_000 });
    seen.length = 0;
    // One headers object for every call, as UpstreamClient prepares it per channel call shape.
    const headers = { authorization: 'Bearer k' };
    await call(dispatcher, { origin, path: '/a', headers, body: '{"n":1}' });
    await call(dispatcher, { origin, path: '/b', headers, body: '{"n":12345}' });
    await call(dispatcher, { origin, path: '/b', method: 'GET', headers, body: undefined });
    await call(dispatcher, { origin: origin.replace('127.0.0.1', 'localhost'), path: '/b', headers, body: '{}' });
    expect(seen.map(({ method, url, headers: got, body }) => [method, url, got['content-length'], got.host, body])).toEqual([
      ['POST', '/a', '7', origin.slice(7), '{"n":1}'],
      ['POST', '/b', '11', origin.slice(7), '{"n":12345}'],
      ['GET', '/b', undefined, origin.slice(7), ''],
      ['POST', '/b', '2', origin.slice(7).replace('127.0.0.1', 'localhost'), '{}'],
    ]);
    expect(seen.every((request) => request.headers.authorization === 'Bearer k')).toBe(true);
    dispatcher.close();
  });

  it('reuses a connection whose answer ended, but not one the server closes', async () => {
    const dispatcher = new Http1Dispatcher({ connectTimeoutMs: 2000, keepAliveMs: 30_000 });
    connections = 0;
    for (let i = 0; i < 3; i++) expect((await call(dispatcher, { origin })).body).toBe('data: one\n\ndata: two\n\n');
    expect(connections).toBe(1);
    await call(dispatcher, { origin, path: '/close' });
    await call(dispatcher, { origin });
    expect(connections).toBe(2);
    dispatcher.close();
  });

  it('lends plain-TCP pieces as views of one shared read buffer, each read closed by onReadEnd', async () => {
    const dispatcher = new Http1Dispatcher({ connectTimeoutMs: 2000, keepAliveMs: 30_000 });
    const held = (path: string) =>
      new Promise<{ copies: Buffer[]; atReadEnd: string[]; lent: boolean[] }>((resolve, reject) => {
        const got = { copies: [] as Buffer[], atReadEnd: [] as string[], lent: [] as boolean[] };
        let thisRead: Buffer[] = [];
        dispatcher.dispatch(
          { origin, path, method: 'GET', headers: {}, headersTimeout: 2000, bodyTimeout: 2000 },
          {
            onConnect: () => undefined,
            onHeaders: () => true,
            onData: (chunk, lent) => {
              got.lent.push(lent);
              got.copies.push(Buffer.from(chunk));
              thisRead.push(chunk);
              return true;
            },
            // The read's pieces are still intact here: a sink writes them out at this point.
            onReadEnd: () => {
              got.atReadEnd.push(Buffer.concat(thisRead).toString());
              thisRead = [];
            },
            onComplete: () => resolve(got),
            onError: reject,
          },
        );
      });
    const [first, second] = await Promise.all([held('/apart'), held('/apart')]);
    for (const got of [first!, second!]) {
      expect(got.lent.every(Boolean)).toBe(true);
      expect(Buffer.concat(got.copies).toString()).toBe('data: one\n\ndata: two\n\n');
      expect(got.atReadEnd.join('')).toBe('data: one\n\ndata: two\n\n');
    }
    dispatcher.close();
  });

  it('refuses a header that would split the request, and never lets a header override its framing', async () => {
    const dispatcher = new Http1Dispatcher({ connectTimeoutMs: 2000, keepAliveMs: 30_000 });
    await expect(call(dispatcher, { origin, headers: { 'x-a': 'v\r\nX-Injected: 1' } })).rejects.toMatchObject({ kind: 'connect' });
    seen.length = 0;
    await call(dispatcher, { origin, headers: { 'Content-Length': '1', 'Transfer-Encoding': 'chunked' }, body: 'abc' });
    expect(seen[0]).toMatchObject({ body: 'abc', headers: { 'content-length': '3' } });
    expect(seen[0]!.headers['transfer-encoding']).toBeUndefined();
    dispatcher.close();
  });
});
