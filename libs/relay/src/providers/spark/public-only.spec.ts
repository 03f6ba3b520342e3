import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@gw/core';
import type { OptionService } from '@gw/option';
import { UpstreamClient, UpstreamError } from '@gw/upstream';
import * as fx from '../../../../../test/fixtures/providers/spark/fixtures.js';
import { testCall } from '../native/test-call.js';
import { sparkAdaptor } from './index.js';

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
 * Threats S5 with DNS rebinding, on Spark's WebSocket: a channel whose base URL was checked public when saved
 * (`publicOnly`) opens its socket through UpstreamClient's checking pool, so a name or literal that now means
 * loopback is refused before the upgrade request leaves; the loopback canary counts the upgrades that got in.
 */
describe('Spark WebSocket on a public-only channel (threats S5)', () => {
  let canary: Server;
  let port: number;
  let upgrades: number;
  let allowPrivate: boolean;
  const options = { get: (key: string) => (key === 'AllowPrivateOutboundUrls' ? allowPrivate : undefined) } as unknown as OptionService;
  const client = new UpstreamClient(relayConfig(), options);

  beforeAll(async () => {
    canary = createServer((_req, res) => res.end());
    // Each upgrade that reached the canary is counted and refused (the call then fails, but only after getting in).
    canary.on('upgrade', (_req, socket) => {
      upgrades++;
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
    });
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
    port = (canary.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await client.onModuleDestroy();
    canary.closeAllConnections();
    await new Promise<void>((resolve) => canary.close(() => resolve()));
  });
  beforeEach(() => {
    upgrades = 0;
    allowPrivate = false;
  });

  const send = (host: string, publicOnly: boolean) => {
    const call = testCall(18, fx.KEY, 'SparkDesk', { baseUrl: `http://${host}:${port}` });
    if (publicOnly) Object.assign(call.channel.upstream, { publicOnly: true });
    return sparkAdaptor.send!(sparkAdaptor.buildChatRequest(call), { body: {} }, { call, http: client }).then(
      () => undefined,
      (error: unknown) => error,
    );
  };

  it('refuses a loopback literal or a name that answers loopback before the upgrade leaves', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const error = await send(host, true);
      expect(error).toBeInstanceOf(UpstreamError);
      expect((error as UpstreamError).kind).toBe('connect');
      expect((error as Error).message).not.toContain('127.0.0.1');
    }
    expect(upgrades).toBe(0);
  });

  it('leaves an unflagged channel as it was, and lets AllowPrivateOutboundUrls lift the rule', async () => {
    expect(client.publicOnlyDispatcher({})).toBeUndefined();
    expect(await send('127.0.0.1', false)).toBeInstanceOf(UpstreamError);
    expect(upgrades).toBe(1);
    allowPrivate = true;
    expect(client.publicOnlyDispatcher({ publicOnly: true })).toBeUndefined();
    expect(await send('127.0.0.1', true)).toBeInstanceOf(UpstreamError);
    expect(upgrades).toBe(2);
    allowPrivate = false;
    expect(client.publicOnlyDispatcher({ publicOnly: true })).toBeDefined();
    await send('127.0.0.1', true);
    expect(upgrades).toBe(2);
  });
});
