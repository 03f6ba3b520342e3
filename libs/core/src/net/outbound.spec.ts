import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertOutboundUrl, isBlockedAddress, outboundFetch, outboundOpen, parseOutboundUrl } from './outbound.js';

const BLOCKED_URLS = [
  'http://0.0.0.0/',
  'http://0/',
  'http://0.0.0.0:8080/',
  'http://127.0.0.1/',
  'http://127.1/',
  'http://127.0.1/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://0x7f.0.0.1/',
  'http://017700000001/',
  'http://0177.0.0.1/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:10.0.0.1]/',
  'http://[::]/',
  'http://[::1]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://[fe80::1]/',
  'http://[fc00::1]/',
  'http://[fd12:3456::1]/',
  'http://[ff02::1]/',
  'http://10.0.0.1/',
  'http://10.255.255.255/',
  'http://172.16.0.1/',
  'http://172.31.255.1/',
  'http://192.168.1.1/',
  'http://100.64.0.1/',
  'http://100.127.255.254/',
  'http://198.18.0.1/',
  'http://198.19.255.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://224.0.0.1/',
  'http://255.255.255.255/',
  'http://240.0.0.1/',
  'http://localhost/',
  'http://LOCALHOST./',
  'http://ⓛocalhost/',
  'http://metadata.google.internal/',
  'http://no-such-host.invalid/',
  'https://127.0.0.1:443/',
  // IPv6 forms that carry a private IPv4 address (threats S3, issue 22).
  'http://[::127.0.0.1]/',
  'http://[::ffff:0:127.0.0.1]/',
  'http://[64:ff9b::127.0.0.1]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[64:ff9b:1::a00:1]/',
  'http://[2002:7f00:1::]/',
  'http://[2002:a9fe:a9fe::1]/',
  'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
  'http://[2001:0:a00:1:8000:63bf:f7f7:f7f7]/',
  'http://0x7f.1/',
  'http://0177.1/',
  'http://0x7F.0x0.0x0.0x1/',
  'http://2852039166/',
];

describe('outbound URL guard', () => {
  it.each(BLOCKED_URLS)('blocks %s', async (url) => {
    await expect(assertOutboundUrl(url)).rejects.toThrow();
  });

  it.each(['http://user:pass@example.com/', 'ftp://example.com/', 'file:///etc/passwd', 'gopher://x/', 'javascript:alert(1)', 'not a url'])(
    'refuses the form %s',
    async (url) => {
      await expect(assertOutboundUrl(url)).rejects.toThrow();
    },
  );

  it('refuses http when https is required', async () => {
    await expect(assertOutboundUrl('http://8.8.8.8/', { httpsOnly: true })).rejects.toThrow('https');
  });

  it('accepts public literals', async () => {
    await expect(assertOutboundUrl('https://8.8.8.8/')).resolves.toBeInstanceOf(URL);
    await expect(assertOutboundUrl('https://[2606:4700:4700::1111]/')).resolves.toBeInstanceOf(URL);
  });

  it('classifies addresses', () => {
    for (const a of [
      '127.0.0.1',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:192.168.0.1',
      '0.0.0.0',
      '100.64.0.1',
      'fe80::1%eth0',
      '198.18.0.1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      'garbage',
    ]) {
      expect(isBlockedAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isBlockedAddress(a), a).toBe(false);
    // Normalised, not refused wholesale: NAT64 (DNS64 networks), 6to4 and Teredo to public IPv4 hosts still work.
    for (const a of ['64:ff9b::808:808', '64:ff9b::8.8.8.8', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'])
      expect(isBlockedAddress(a), a).toBe(false);
    for (const a of ['64:ff9b::7f00:1', '64:ff9b:1::c0a8:1', '2002:c0a8:101::', '2001:0:4136:e378:8000:63bf:80ff:fffe', '::ffff:0:7f00:1'])
      expect(isBlockedAddress(a), a).toBe(true);
    // IPv4-compatible forms, as written and as URL parsing normalises them.
    for (const a of ['::127.0.0.1', '::7f00:1', '[::7f00:1]', '::a9fe:a9fe']) expect(isBlockedAddress(a), a).toBe(true);
    expect(() => parseOutboundUrl('http://[::127.0.0.1]:8080/')).toThrow(/private or reserved/);
  });

  describe('fetch', () => {
    let server: Server;
    let base: string;
    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url === '/redirect') {
          res.writeHead(302, { location: 'http://127.0.0.1/elsewhere' }).end();
        } else if (req.url === '/big') {
          res.end(Buffer.alloc(2 * 1024 * 1024, 'a'));
        } else if (req.url === '/slow') {
          setTimeout(() => res.end('late'), 2000);
        } else {
          res.end(JSON.stringify({ ok: true, auth: req.headers.authorization ?? null }));
        }
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('refuses loopback unless allowed', async () => {
      await expect(outboundFetch(`${base}/`)).rejects.toThrow('private');
      const res = await outboundFetch(`${base}/`, { allowPrivate: true, headers: { authorization: 'Bearer x' } });
      expect(res.json()).toEqual({ ok: true, auth: 'Bearer x' });
    });
    it('opens a stream to a checked address only', async () => {
      await expect(outboundOpen(`${base}/big`, { timeoutMs: 1000 })).rejects.toThrow('private');
      const res = await outboundOpen(`${base}/big`, { allowPrivate: true, timeoutMs: 1000 });
      let size = 0;
      for await (const chunk of res.body) size += (chunk as Buffer).length;
      expect([res.status, size]).toEqual([200, 2 * 1024 * 1024]);
      const redirect = await outboundOpen(`${base}/redirect`, { allowPrivate: true, timeoutMs: 1000 });
      for await (const _ of redirect.body) void _;
      expect(redirect.status).toBe(302);
    });
    it('does not follow redirects', async () => {
      const res = await outboundFetch(`${base}/redirect`, { allowPrivate: true });
      expect(res.status).toBe(302);
    });
    it('caps the body', async () => {
      await expect(outboundFetch(`${base}/big`, { allowPrivate: true })).rejects.toThrow('too large');
    });
    it('times out', async () => {
      await expect(outboundFetch(`${base}/slow`, { allowPrivate: true, timeoutMs: 300 })).rejects.toThrow('timeout');
    });
  });
});
