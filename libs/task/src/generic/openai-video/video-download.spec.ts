import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundUrlError } from '@gw/core';
import { openVideoDownload } from './video-download.js';

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
}

/** A loopback server answering each path from `routes` (status and headers) and recording what it was sent. */
async function server(routes: Record<string, { status: number; location?: string }>) {
  const seen: Seen[] = [];
  const http: Server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    const route = routes[req.url ?? ''] ?? { status: 404 };
    res.writeHead(route.status, route.location ? { location: route.location } : { 'content-type': 'video/mp4' });
    res.end(route.status === 200 ? 'VIDEO' : '');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => http.close(() => resolve())) };
}

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += chunk.toString();
  return out;
}

describe('openVideoDownload', () => {
  let channel: Awaited<ReturnType<typeof server>>;
  let elsewhere: Awaited<ReturnType<typeof server>>;
  const key = { 'x-goog-api-key': 'channel-secret' };

  beforeAll(async () => {
    elsewhere = await server({ '/video': { status: 200 } });
    channel = await server({
      '/files/1': { status: 200 },
      '/files/moved': { status: 302, location: '/files/1' },
      '/files/away': { status: 302, location: `${elsewhere.url}/video` },
      '/files/loop': { status: 302, location: '/files/loop' },
    });
  });
  afterAll(async () => {
    await channel?.close();
    await elsewhere?.close();
  });

  const open = (url: string, allowPrivate = false) =>
    openVideoDownload({ url, headers: key }, `${channel.url}/v1beta`, { allowPrivate, timeoutMs: 5_000 });

  it("sends the channel's key to the channel's own origin, private or not, and follows its redirects there", async () => {
    const answer = await open(`${channel.url}/files/moved`);
    expect(answer.status).toBe(200);
    expect(await text(answer.body)).toBe('VIDEO');
    expect(channel.seen.slice(-2).map((s) => [s.path, s.headers['x-goog-api-key']])).toEqual([
      ['/files/moved', 'channel-secret'],
      ['/files/1', 'channel-secret'],
    ]);
  });

  it('refuses another host on a private address, named directly or by a redirect, before sending it anything', async () => {
    const before = elsewhere.seen.length;
    await expect(open(`${elsewhere.url}/video`)).rejects.toBeInstanceOf(OutboundUrlError);
    await expect(open(`${channel.url}/files/away`)).rejects.toThrow(/private or reserved address/);
    expect(elsewhere.seen.length).toBe(before);
  });

  it('never sends the key to another host, even where private addresses are allowed', async () => {
    const answer = await open(`${channel.url}/files/away`, true);
    expect(await text(answer.body)).toBe('VIDEO');
    const call = elsewhere.seen.at(-1)!;
    expect(call.path).toBe('/video');
    expect(call.headers).not.toHaveProperty('x-goog-api-key');
  });

  it('stops following redirects after a few hops and returns the last answer', async () => {
    const answer = await open(`${channel.url}/files/loop`);
    answer.body.resume();
    expect(answer.status).toBe(302);
    expect(channel.seen.filter((s) => s.path === '/files/loop').length).toBe(4);
  });
});
