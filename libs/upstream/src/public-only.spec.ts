import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dns from 'node:dns';
import diagnostics from 'node:diagnostics_channel';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@gw/core';
import type { OptionService } from '@gw/option';
import { UpstreamClient } from './upstream.client.js';
import { buildBalanceRequest, buildProviderRequest, buildUpstreamRequest } from './upstream-url.js';
import { UpstreamError, type UpstreamTarget } from './upstream.types.js';

/** The relay settings as the gateway reads them (5 s timeouts; a connection limit puts calls on undici's pool). */
const relayConfig = (maxConnectionsPerOrigin = 0) =>
  loadConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-public-only-')),
    SESSION_SECRET: 'public-only',
    RELAY_TIMEOUT: '5',
    STREAMING_TIMEOUT: '5',
    RELAY_CONNECT_TIMEOUT: '2',
    RELAY_MAX_CONNECTIONS_PER_ORIGIN: String(maxConnectionsPerOrigin),
  });

/**
 * Threats S5, DNS rebinding: a channel whose base URL was checked public when saved (`publicOnly`) must not be
 * connected to on a private address because its name answers differently now. A scripted resolver stands in for
 * DNS behind every connection's own lookup (node:dns, read at call time); the loopback canary counts what got in.
 */
const PUBLIC = '93.184.216.34';
const v4 = (address: string) => ({ address, family: 4 });
const v6 = (address: string) => ({ address, family: 6 });

describe('public-only channels at connect time (threats S5, DNS rebinding)', () => {
  let canary: Server;
  let port: number;
  let hits: number;
  let answer: (host: string, n: number) => { address: string; family: number }[];
  let asked: string[];
  /** The address each new connection looked up, in order. */
  let connections: string[];
  let allowPrivate: boolean;
  const systemLookup = dns.lookup;
  const options = { get: (key: string) => (key === 'AllowPrivateOutboundUrls' ? allowPrivate : undefined) } as unknown as OptionService;
  const clients: UpstreamClient[] = [];

  const watchConnection = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    socket.once('lookup', (_error: Error | null, address: string) => {
      if (address === undefined) return;
      connections.push(address);
      // Only the loopback canary is reached; anything else is cut before a packet leaves.
      if (address !== '127.0.0.1') socket.destroy(new Error(`the test stopped a connection to ${address}`));
    });
  };

  beforeAll(async () => {
    canary = createServer((_req, res) => {
      hits++;
      res.setHeader('content-type', 'application/json');
      res.end('{"data":[]}');
    });
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
    port = (canary.address() as AddressInfo).port;
    diagnostics.subscribe('net.client.socket', watchConnection);
  });
  afterAll(async () => {
    diagnostics.unsubscribe('net.client.socket', watchConnection);
    for (const client of clients) await client.onModuleDestroy();
    await new Promise<void>((resolve) => canary.close(() => resolve()));
  });

  beforeEach(() => {
    hits = 0;
    asked = [];
    connections = [];
    allowPrivate = false;
    answer = () => [v4('127.0.0.1')];
    (dns as { lookup: unknown }).lookup = (host: string, opts: unknown, callback?: (...args: unknown[]) => void) => {
      const done = (typeof opts === 'function' ? opts : callback) as (...args: unknown[]) => void;
      asked.push(host);
      const answers = answer(host, asked.length);
      process.nextTick(() => {
        if ((opts as { all?: boolean } | undefined)?.all) done(null, answers);
        else done(null, answers[0]?.address, answers[0]?.family);
      });
    };
  });
  afterEach(() => {
    (dns as { lookup: unknown }).lookup = systemLookup;
  });

  const client = (maxConnectionsPerOrigin = 0) => {
    const made = new UpstreamClient(relayConfig(maxConnectionsPerOrigin), options);
    clients.push(made);
    return made;
  };
  const target = (host: string, publicOnly?: boolean): UpstreamTarget => ({
    id: 7,
    type: 1,
    key: 'sk-rebind-secret',
    baseUrl: `http://${host}:${port}`,
    other: '',
    ...(publicOnly === undefined ? {} : { publicOnly }),
  });
  const models = async (c: UpstreamClient, t: UpstreamTarget) => {
    const res = await c.send(t, 'models');
    return [res.status, await res.text()];
  };
  /** The call fails as a connect failure whose message names neither the address nor the name. */
  const refused = async (call: Promise<unknown>) => {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).kind).toBe('connect');
    expect((error as UpstreamError).message).toBe('could not reach upstream (its address is not public)');
    return error;
  };

  describe.each([
    ['the lean HTTP/1.1 client', 0],
    ["undici's pool (a connection limit)", 2],
  ])('on %s', (_name, limit) => {
    it('refuses a name that answered public before and loopback now: no byte reaches the canary', async () => {
      const c = client(limit);
      answer = (_host, n) => (n === 1 ? [v4(PUBLIC)] : [v4('127.0.0.1')]);
      // First connection: the public answer is taken (the test cuts it before it leaves); the next answer is loopback.
      const first = await c.send(target('rebind.test', true), 'models').then(
        () => undefined,
        (e: unknown) => e as UpstreamError,
      );
      expect(first?.kind).toBe('connect');
      expect(connections).toEqual([PUBLIC]);
      await refused(c.send(target('rebind.test', true), 'models'));
      expect(connections).toEqual([PUBLIC]);
      expect(asked).toEqual(['rebind.test', 'rebind.test']);
      expect(hits).toBe(0);
    });

    it.each([
      ['loopback after a public address', [v4(PUBLIC), v4('127.0.0.1')]],
      ['the metadata address first', [v4('169.254.169.254'), v4(PUBLIC)]],
      ['a private IPv4 address among public ones', [v4(PUBLIC), v4('1.1.1.1'), v4('10.0.0.7')]],
      ['an IPv4-mapped loopback address', [v6('2606:4700:4700::1111'), v6('::ffff:127.0.0.1')]],
      ['a NAT64 form of loopback', [v6('64:ff9b::7f00:1')]],
      ['a unique-local IPv6 address', [v4(PUBLIC), v6('fd00::1')]],
      ['nothing at all', []],
    ])('refuses a name that answers %s, before any connection', async (_what, answers) => {
      answer = () => answers;
      await refused(client(limit).send(target('mixed.test', true), 'chat', { body: { model: 'm', messages: [] } }));
      expect(connections).toEqual([]);
      expect(hits).toBe(0);
    });

    it('holds every kind of call to it: adaptor-built requests and balance queries too', async () => {
      const c = client(limit);
      const flagged = target('rebind.test', true);
      expect(buildUpstreamRequest(flagged, 'chat').publicOnly).toBe(true);
      expect(buildUpstreamRequest(target('rebind.test'), 'chat').publicOnly).toBeUndefined();
      await refused(c.sendBuilt(buildProviderRequest(flagged, '/v1/messages', { 'x-api-key': flagged.key }, false), { body: {} }));
      await refused(c.sendBalance({ ...flagged, type: 43 }));
      expect(buildBalanceRequest({ ...flagged, type: 43 }).publicOnly).toBe(true);
      expect(hits).toBe(0);
    });

    it('refuses a literal private address without looking anything up', async () => {
      for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '169.254.169.254', '10.1.2.3']) {
        await refused(client(limit).send(target(host, true), 'models'));
      }
      expect(asked).toEqual([]);
      expect(hits).toBe(0);
    });

    it('leaves a channel without the flag as it was: its name may answer loopback', async () => {
      const c = client(limit);
      expect(await models(c, target('rebind.test'))).toEqual([200, '{"data":[]}']);
      expect(await models(c, target('rebind.test', false))).toEqual([200, '{"data":[]}']);
      expect(await models(c, target('127.0.0.1'))).toEqual([200, '{"data":[]}']);
      expect(hits).toBe(3);
    });

    it('lets AllowPrivateOutboundUrls lift the rule, read at each call', async () => {
      const c = client(limit);
      allowPrivate = true;
      expect(await models(c, target('rebind.test', true))).toEqual([200, '{"data":[]}']);
      expect(await models(c, target('127.0.0.1', true))).toEqual([200, '{"data":[]}']);
      expect(hits).toBe(2);
      allowPrivate = false;
      await refused(c.send(target('rebind.test', true), 'models'));
      await refused(c.send(target('127.0.0.1', true), 'models'));
      expect(hits).toBe(2);
    });

    it('never hands a public-only call a kept-alive connection opened without the check', async () => {
      const c = client(limit);
      // An unflagged channel on the same origin leaves a loopback connection idle in the pool...
      expect(await models(c, target('shared.test'))).toEqual([200, '{"data":[]}']);
      expect(hits).toBe(1);
      // ...which the flagged channel must not reuse: it opens its own, through the check.
      await refused(c.send(target('shared.test', true), 'models'));
      expect(hits).toBe(1);
      // The unflagged channel still works (and on the lean client reuses its kept-alive connection: no new lookup;
      // undici's pool may open a second one while the first is being released).
      const lookups = asked.length;
      expect(await models(c, target('shared.test'))).toEqual([200, '{"data":[]}']);
      if (limit === 0) expect(asked.length).toBe(lookups);
      expect(hits).toBe(2);
    });
  });
});
