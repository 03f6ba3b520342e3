import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { RelayError } from '../pipeline/relay-error.js';
import type { AudioUsage } from '../pricing/billing-formulas.js';
import { type BridgeMeter, RealtimeBridge } from './realtime-bridge.js';

const KEY = 'sk-channel-secret-0123456789';
const done = JSON.stringify({ type: 'response.done', response: { usage: { input_tokens: 3, output_tokens: 4 } } });

/** A WebSocket server on loopback whose accepted sockets are handed out in order. */
async function socketServer(): Promise<{ server: Server; url: string; next: () => Promise<WebSocket> }> {
  const sockets = new WebSocketServer({ noServer: true });
  const accepted: WebSocket[] = [];
  const waiting: ((ws: WebSocket) => void)[] = [];
  const server = createServer();
  server.on('upgrade', (req, socket, head) =>
    sockets.handleUpgrade(req, socket, head, (ws) => {
      const waiter = waiting.shift();
      if (waiter) waiter(ws);
      else accepted.push(ws);
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url, next: () => new Promise((resolve) => (accepted.length ? resolve(accepted.shift()!) : waiting.push(resolve))) };
}

function opened(ws: WebSocket): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function closeOf(ws: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}

function messages(ws: WebSocket): string[] {
  const seen: string[] = [];
  ws.on('message', (data) => seen.push(data.toString()));
  return seen;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/**
 * A session as the relay makes one: the client's socket as the gateway holds it (the server side of a client
 * connection) and the provider's (a client socket to a fake provider), bridged.
 */
async function session(meter: BridgeMeter, idleMs = 5000) {
  const front = await socketServer();
  const provider = await socketServer();
  servers.push(front.server, provider.server);
  const client = await opened(new WebSocket(front.url));
  const held = await front.next();
  const upstream = await opened(new WebSocket(provider.url));
  const providerSide = await provider.next();
  const bridge = new RealtimeBridge(held, upstream, meter, {
    requestId: 'req1',
    idleMs,
    redact: (frame) => frame.toString().replaceAll(KEY, '***'),
  });
  return { client, providerSide, bridge, toClient: messages(client), toProvider: messages(providerSide) };
}

const noBilling: BridgeMeter = { clientFrame: () => {}, upstreamFrame: () => {}, responseDone: async () => undefined };

describe('RealtimeBridge', () => {
  it('passes frames both ways as they are, the channel key masked in what the provider says', async () => {
    const s = await session(noBilling);
    s.client.send('{"type":"response.create"}');
    s.client.send(Buffer.from([1, 2, 3]), { binary: true });
    await until(() => s.toProvider.length === 2);
    expect(s.toProvider[0]).toBe('{"type":"response.create"}');
    s.providerSide.send(`{"type":"error","error":{"message":"bad key ${KEY}"}}`);
    await until(() => s.toClient.length === 1);
    expect(s.toClient[0]).toBe('{"type":"error","error":{"message":"bad key ***"}}');
    s.client.close(1000);
    await s.bridge.done;
  });

  it("holds the provider's next frames until a response.done is billed, then lets them through in order", async () => {
    let release!: (refusal: RelayError | undefined) => void;
    const billed: (AudioUsage | undefined)[] = [];
    const meter: BridgeMeter = {
      clientFrame: () => {},
      upstreamFrame: () => {},
      responseDone: (usage) => {
        billed.push(usage);
        return new Promise((resolve) => (release = resolve));
      },
    };
    const s = await session(meter);
    s.providerSide.send(done);
    s.providerSide.send('{"type":"response.created"}');
    await until(() => billed.length === 1 && s.toClient.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(s.toClient).toEqual([done]);
    expect(billed[0]).toMatchObject({ inputTokens: 3, outputTokens: 4 });
    release(undefined);
    await until(() => s.toClient.length === 2);
    expect(s.toClient[1]).toBe('{"type":"response.created"}');
    s.client.close(1000);
    await s.bridge.done;
  });

  it('shows the meter every text frame each way, and a response.done without usage as one to count locally', async () => {
    const seen: string[] = [];
    const billed: (AudioUsage | undefined)[] = [];
    const s = await session({
      clientFrame: (frame) => seen.push(`client ${frame.toString()}`),
      upstreamFrame: (text) => seen.push(`upstream ${text?.toString() ?? '(binary)'}`),
      responseDone: async (usage) => {
        billed.push(usage);
        return undefined;
      },
    });
    s.client.send('{"type":"input_audio_buffer.append","audio":"AAAA"}');
    s.client.send(Buffer.from([1]), { binary: true });
    await until(() => s.toProvider.length === 2);
    s.providerSide.send('{"type":"response.text.delta","delta":"hi"}');
    s.providerSide.send(Buffer.from([2]), { binary: true });
    s.providerSide.send('{"type":"response.done","response":{"status":"cancelled"}}');
    await until(() => s.toClient.length === 3 && billed.length === 1);
    expect(seen).toEqual([
      'client {"type":"input_audio_buffer.append","audio":"AAAA"}',
      'upstream {"type":"response.text.delta","delta":"hi"}',
      'upstream (binary)',
      'upstream {"type":"response.done","response":{"status":"cancelled"}}',
    ]);
    expect(billed).toEqual([undefined]);
    s.client.close(1000);
    await s.bridge.done;
  });

  it('sends the error event and closes both sides (1008) when billing refuses the session', async () => {
    const s = await session({
      clientFrame: () => {},
      upstreamFrame: () => {},
      responseDone: async () => new RelayError('insufficient user quota', 403, 'insufficient_user_quota'),
    });
    const closed = closeOf(s.client);
    const providerClosed = closeOf(s.providerSide);
    s.providerSide.send(done);
    expect(await closed).toEqual({ code: 1008, reason: 'insufficient quota' });
    await providerClosed;
    expect(JSON.parse(s.toClient[1]!)).toMatchObject({ type: 'error', event_id: 'evt_req1', error: { code: 'insufficient_user_quota' } });
    await s.bridge.done;
  });

  it("passes the provider's close code on, and reports a lost provider as 1011", async () => {
    const normal = await session(noBilling);
    const closed = closeOf(normal.client);
    normal.providerSide.close(4000, 'session expired');
    expect(await closed).toEqual({ code: 4000, reason: 'session expired' });
    await normal.bridge.done;

    const lost = await session(noBilling);
    const cut = closeOf(lost.client);
    lost.providerSide.terminate();
    expect(await cut).toEqual({ code: 1011, reason: 'upstream connection lost' });
    await lost.bridge.done;
  });

  it('closes a client that goes away on the provider, and an idle session on both', async () => {
    const gone = await session(noBilling);
    const providerClosed = closeOf(gone.providerSide);
    gone.client.terminate();
    expect((await providerClosed).code).toBe(1000);
    await gone.bridge.done;

    const idle = await session(noBilling, 100);
    const closed = closeOf(idle.client);
    expect(await closed).toEqual({ code: 1001, reason: 'idle timeout' });
    await idle.bridge.done;
  });
});
