import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { loadConfig } from '@gw/core';
import type { OptionService } from '@gw/option';
import { UpstreamClient } from './upstream.client.js';
import { UpstreamError, type UpstreamTarget } from './upstream.types.js';

const config = loadConfig({
  DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-upstream-socket-')),
  SESSION_SECRET: 'upstream-socket',
  RELAY_CONNECT_TIMEOUT: '2',
});

/**
 * The Realtime relay's provider socket under the rules of every upstream call (threats S5): a channel whose
 * base URL was checked public when saved reaches no loopback address, by literal or by name; a refused upgrade
 * comes back as the provider's answer; a redirect is never followed. The canary counts the upgrades that got in.
 */
describe('UpstreamClient.openRealtime', () => {
  let canary: Server;
  let port: number;
  let upgrades: IncomingHttpHeaders[];
  let answer: 'accept' | 'refuse' | 'redirect' | 'stall';
  let stalled: Duplex | undefined;
  let allowPrivate: boolean;
  const options = { get: (key: string) => (key === 'AllowPrivateOutboundUrls' ? allowPrivate : undefined) } as unknown as OptionService;
  const client = new UpstreamClient(config, options);
  const sockets = new WebSocketServer({ noServer: true });

  beforeAll(async () => {
    canary = createServer((_req, res) => res.end());
    canary.on('upgrade', (req, socket, head) => {
      upgrades.push(req.headers);
      if (answer === 'accept') sockets.handleUpgrade(req, socket, head, (ws) => ws.close(1000));
      else if (answer === 'redirect') socket.end('HTTP/1.1 302 Found\r\nlocation: http://169.254.169.254/\r\ncontent-length: 0\r\n\r\n');
      // A refusal whose body never ends: a head, 10 of the 100 bytes it announces, then silence.
      else if (answer === 'stall') {
        stalled = socket;
        socket.write('HTTP/1.1 429 Too Many Requests\r\ncontent-length: 100\r\n\r\n{"error":');
      } else {
        const body = JSON.stringify({ error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } });
        socket.end(`HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
      }
    });
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
    port = (canary.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await client.onModuleDestroy();
    sockets.close();
    canary.closeAllConnections();
    await new Promise<void>((resolve) => canary.close(() => resolve()));
  });
  beforeEach(() => {
    upgrades = [];
    answer = 'accept';
    allowPrivate = false;
  });

  const target = (host: string, publicOnly: boolean): UpstreamTarget => ({
    id: 1,
    type: 1,
    key: 'sk-channel-key',
    baseUrl: `http://${host}:${port}`,
    other: '',
    publicOnly,
  });
  const open = (host: string, publicOnly: boolean) =>
    client.openRealtime(target(host, publicOnly), 'gpt-4o-realtime-preview', { beta: true, maxPayload: 1024 }).then(
      (opening) => opening,
      (error: unknown) => error,
    );

  it('opens the socket with the channel key and the beta header', async () => {
    const opening = await open('127.0.0.1', false);
    expect(opening).toHaveProperty('socket');
    (opening as { socket: { terminate(): void } }).socket.terminate();
    expect(upgrades[0]).toMatchObject({ authorization: 'Bearer sk-channel-key', 'openai-beta': 'realtime=v1' });
  });

  it('refuses a loopback literal or a name that answers loopback before the upgrade leaves', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const error = await open(host, true);
      expect(error).toBeInstanceOf(UpstreamError);
      expect((error as UpstreamError).kind).toBe('connect');
      expect((error as Error).message).not.toContain('127.0.0.1');
    }
    expect(upgrades).toHaveLength(0);
    allowPrivate = true;
    const lifted = await open('127.0.0.1', true);
    expect(lifted).toHaveProperty('socket');
    (lifted as { socket: { terminate(): void } }).socket.terminate();
    expect(upgrades).toHaveLength(1);
  });

  it("answers a refused upgrade with the provider's status and body, and never follows a redirect", async () => {
    answer = 'refuse';
    expect(await open('127.0.0.1', false)).toEqual({
      refused: { status: 401, text: JSON.stringify({ error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } }) },
    });
    answer = 'redirect';
    expect(await open('127.0.0.1', false)).toEqual({ refused: { status: 302, text: '' } });
    expect(upgrades).toHaveLength(2);
  });

  it('does not wait past RELAY_CONNECT_TIMEOUT for a refusal whose body stalls', async () => {
    answer = 'stall';
    const started = performance.now();
    const outcome = await open('127.0.0.1', false);
    const waited = performance.now() - started;
    // Either the refusal with what arrived of its body, or a handshake timeout: never a wait for ever.
    if (outcome instanceof UpstreamError) expect(outcome.kind).toBe('timeout');
    else expect(outcome).toEqual({ refused: { status: 429, text: '{"error":' } });
    expect(waited).toBeLessThan(2_000 + 1_500);
    stalled?.destroy();
  });

  it('fails as a connect failure when nothing answers', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const free = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await client
      .openRealtime({ ...target('127.0.0.1', false), baseUrl: `http://127.0.0.1:${free}` }, 'm', { beta: false, maxPayload: 1024 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).kind).toBe('connect');
  });
});
