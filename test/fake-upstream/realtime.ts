// A loopback stand-in for OpenAI's Realtime WebSocket (`GET /v1/realtime?model=`): it records each handshake and
// every client event, answers `session.created` on connect, and a `response.create` with a scripted text response
// ending in `response.done` with the scripted usage. A script can refuse the upgrade, add audio to the response,
// hold a response open (no `response.done`), or drop the connection right after `session.created` or in the
// middle of a response.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/** The usage of a response (OpenAI's Realtime `usage` object). */
export const REALTIME_USAGE = {
  total_tokens: 1300,
  input_tokens: 1000,
  output_tokens: 300,
  input_token_details: { text_tokens: 400, audio_tokens: 600, cached_tokens: 0 },
  output_token_details: { text_tokens: 100, audio_tokens: 200 },
};

export interface RealtimeScript {
  /** Answers the upgrade with this status and JSON body instead of switching. */
  refuse?: { status: number; body: unknown };
  /** `response.create` gets `response.created` and one delta, never `response.done` (read at each response). */
  hold?: boolean;
  /** The connection is dropped (no close frame) right after `session.created`. */
  dropAfterSession?: boolean;
  /** The connection is dropped (no close frame) after a response's deltas, before its `response.done`. */
  dropMidResponse?: boolean;
  /** Each response also sends a `response.audio.delta` of this many bytes (silent PCM16). */
  audioBytes?: number;
  usage?: unknown;
  reply?: string;
}

export interface RealtimeConnection {
  url: string;
  headers: IncomingHttpHeaders;
  /** Client frames as received: parsed JSON, or the raw text when it is not JSON. */
  received: unknown[];
  closed: boolean;
  closeCode?: number;
}

export interface FakeRealtime {
  url: string;
  connections: RealtimeConnection[];
  /** Upgrade requests seen, refused ones included. */
  handshakes: number;
  script(next: RealtimeScript): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeRealtime(): Promise<FakeRealtime> {
  let script: RealtimeScript = {};
  let handshakes = 0;
  const connections: RealtimeConnection[] = [];
  const sockets = new WebSocketServer({ noServer: true });
  const server = createServer((_req, res) => {
    res.writeHead(404).end();
  });
  server.on('upgrade', (req, socket, head) => {
    handshakes++;
    if (script.refuse) {
      const body = JSON.stringify(script.refuse.body);
      socket.end(
        `HTTP/1.1 ${script.refuse.status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      );
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => serve(ws, { url: req.url ?? '', headers: req.headers, received: [], closed: false }));
  });

  function serve(ws: WebSocket, connection: RealtimeConnection): void {
    const current = script;
    connections.push(connection);
    let events = 0;
    const send = (event: Record<string, unknown>) => ws.send(JSON.stringify({ event_id: `evt_${++events}`, ...event }));
    ws.on('close', (code) => {
      connection.closed = true;
      connection.closeCode = code;
    });
    ws.on('error', () => undefined);
    send({
      type: 'session.created',
      session: { id: 'sess_1', object: 'realtime.session', model: new URL(connection.url, 'http://x').searchParams.get('model') },
    });
    if (current.dropAfterSession) {
      setTimeout(() => ws.terminate(), 20);
      return;
    }
    ws.on('message', (data, binary) => {
      const text = data.toString();
      let event: any;
      try {
        event = binary ? undefined : JSON.parse(text);
      } catch {
        event = undefined;
      }
      connection.received.push(event ?? text);
      if (!event) {
        send({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_json', message: 'not JSON' } });
        return;
      }
      if (event.type === 'conversation.item.create') send({ type: 'conversation.item.created', item: event.item });
      if (event.type !== 'response.create') return;
      const id = `resp_${connections.length}_${events}`;
      send({ type: 'response.created', response: { id, status: 'in_progress' } });
      // The response follows the script as it is now (a test may change it mid-session).
      send({ type: 'response.text.delta', response_id: id, delta: script.reply ?? 'Hello from the fake' });
      if (script.audioBytes)
        send({ type: 'response.audio.delta', response_id: id, delta: Buffer.alloc(script.audioBytes).toString('base64') });
      if (script.dropMidResponse) {
        setTimeout(() => ws.terminate(), 50);
        return;
      }
      if (script.hold) return;
      send({ type: 'response.text.done', response_id: id, text: script.reply ?? 'Hello from the fake' });
      send({ type: 'response.done', response: { id, status: 'completed', usage: script.usage ?? REALTIME_USAGE } });
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    get handshakes() {
      return handshakes;
    },
    script: (next) => {
      script = next;
    },
    reset: () => {
      script = {};
      connections.length = 0;
      handshakes = 0;
    },
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
