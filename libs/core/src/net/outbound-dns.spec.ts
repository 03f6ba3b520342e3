import dns from 'node:dns';
import diagnostics from 'node:diagnostics_channel';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * One scripted resolver behind both lookups a request can make: the guard's check (node:dns/promises) and a
 * connection's own lookup (node:dns, which net.connect uses unless given another). `answer(host, n)` gets the
 * number of the lookup (1 for the first); without a script the resolver never answers.
 */
const resolver = vi.hoisted(() => ({
  answer: undefined as ((host: string, n: number) => { address: string; family: number }[]) | undefined,
  asked: [] as string[],
}));

vi.mock('node:dns/promises', () => ({
  lookup: (host: string) => {
    resolver.asked.push(host);
    const answer = resolver.answer;
    return answer ? Promise.resolve(answer(host, resolver.asked.length)) : new Promise(() => undefined);
  },
}));

const { assertOutboundUrl, OUTBOUND_TIMEOUT_MS, outboundFetch, outboundOpen } = await import('./outbound.js');

describe('outbound URL guard with a hanging resolver', () => {
  afterEach(() => vi.useRealTimers());

  it('gives up resolving at the request timeout', async () => {
    vi.useFakeTimers();
    const pending = assertOutboundUrl('https://hooks.example.com/x');
    const outcome = expect(pending).rejects.toThrow('URL host cannot be resolved');
    await vi.advanceTimersByTimeAsync(OUTBOUND_TIMEOUT_MS + 1);
    await outcome;
  });
});

/** A public address the tests never really reach: a connection to it is stopped as soon as it is looked up. */
const PUBLIC = '93.184.216.34';
const v4 = (address: string) => ({ address, family: 4 });
const v6 = (address: string) => ({ address, family: 6 });

describe('outbound requests are pinned to the address that was checked (threat S4, DNS rebinding)', () => {
  let canary: Server;
  let port: number;
  let hits: string[];
  /** The address every outgoing connection looked up, in order. */
  let connections: string[];
  const systemLookup = dns.lookup;

  const watchConnection = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    socket.once('lookup', (_error: Error | null, address: string) => {
      connections.push(address);
      // Only the loopback canary is reached; anything else is cut before a packet leaves.
      if (address !== '127.0.0.1') socket.destroy(new Error(`the test stopped a connection to ${address}`));
    });
  };

  beforeAll(async () => {
    canary = createServer((req, res) => {
      hits.push(`${req.headers.host}${req.url}`);
      res.end('inside');
    });
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
    port = (canary.address() as AddressInfo).port;
    diagnostics.subscribe('net.client.socket', watchConnection);
  });
  afterAll(async () => {
    diagnostics.unsubscribe('net.client.socket', watchConnection);
    await new Promise<void>((resolve) => canary.close(() => resolve()));
  });

  beforeEach(() => {
    hits = [];
    connections = [];
    resolver.asked = [];
    // The same script answers a connection that resolves the name again for itself.
    (dns as { lookup: unknown }).lookup = (host: string, options: unknown, callback?: (...args: unknown[]) => void) => {
      const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
      resolver.asked.push(host);
      const answers = resolver.answer?.(host, resolver.asked.length) ?? [];
      if ((options as { all?: boolean } | undefined)?.all) done(null, answers);
      else done(null, answers[0]?.address, answers[0]?.family);
    };
  });
  afterEach(() => {
    (dns as { lookup: unknown }).lookup = systemLookup;
    resolver.answer = undefined;
  });

  /** A name that answers a public address the first time and loopback every time after. */
  const rebinding = () => {
    resolver.answer = (_host, n) => (n === 1 ? [v4(PUBLIC)] : [v4('127.0.0.1')]);
  };

  it('outboundFetch connects to the checked public address, never to the loopback a second lookup answers', async () => {
    rebinding();
    await expect(outboundFetch(`http://rebind.example.com:${port}/hook`, { method: 'POST', body: '{}', timeoutMs: 2000 })).rejects.toThrow(
      'request failed',
    );
    expect(hits).toEqual([]);
    expect(connections).toEqual([PUBLIC]);
    expect(resolver.asked).toEqual(['rebind.example.com']);
  });

  it('outboundOpen (image and video downloads) is pinned the same way', async () => {
    rebinding();
    await expect(outboundOpen(`http://rebind.example.com:${port}/image.png`, { timeoutMs: 2000 })).rejects.toThrow('request failed');
    expect(hits).toEqual([]);
    expect(connections).toEqual([PUBLIC]);
    expect(resolver.asked).toEqual(['rebind.example.com']);
  });

  it.each([
    ['a private IPv4 address after a public one', [v4(PUBLIC), v4('10.0.0.7')]],
    ['loopback after a public one', [v4(PUBLIC), v4('127.0.0.1')]],
    ['IPv6 loopback after a public one', [v4(PUBLIC), v6('::1')]],
    ['a link-local metadata address first', [v4('169.254.169.254'), v4(PUBLIC)]],
    ['an IPv4-mapped loopback address', [v6('2606:4700:4700::1111'), v6('::ffff:127.0.0.1')]],
    ['a CGNAT address among three', [v4(PUBLIC), v4('1.1.1.1'), v4('100.64.0.1')]],
    ['a unique-local IPv6 address', [v4(PUBLIC), v6('fd00::1')]],
  ])('refuses a name that answers %s, before any connection', async (_what, answers) => {
    resolver.answer = () => answers;
    await expect(assertOutboundUrl(`https://mixed.example.com:${port}/`)).rejects.toThrow('private or reserved');
    await expect(outboundFetch(`http://mixed.example.com:${port}/`, { timeoutMs: 2000 })).rejects.toThrow('private or reserved');
    await expect(outboundOpen(`http://mixed.example.com:${port}/`, { timeoutMs: 2000 })).rejects.toThrow('private or reserved');
    expect(connections).toEqual([]);
    expect(hits).toEqual([]);
  });

  it('accepts a name whose every answer is public', async () => {
    resolver.answer = () => [v4(PUBLIC), v6('2606:4700:4700::1111')];
    await expect(assertOutboundUrl('https://public.example.com/')).resolves.toBeInstanceOf(URL);
  });

  it('with AllowPrivateOutboundUrls a private answer is allowed, and the connection still goes to the checked one', async () => {
    // Checked: the loopback canary; any later lookup would say another intranet host.
    resolver.answer = (_host, n) => (n === 1 ? [v4('127.0.0.1')] : [v4('10.9.9.9')]);
    const res = await outboundFetch(`http://intranet.example.com:${port}/ping`, { allowPrivate: true, timeoutMs: 2000 });
    expect([res.status, res.text]).toEqual([200, 'inside']);
    expect(hits).toEqual([`intranet.example.com:${port}/ping`]);
    expect(connections).toEqual(['127.0.0.1']);
    expect(resolver.asked).toEqual(['intranet.example.com']);
  });
});
