import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_FRAME, FRAMES, KEY } from '../../fixtures/providers/spark/fixtures.js';
import { acceptWebSocket } from './websocket.js';

const DOMAINS: Record<string, string> = { '/v2.1/chat': 'generalv2', '/v3.5/chat': 'generalv3.5' };

/** Checks the signed URL as iFlytek would: the signature of host, date and request line with the APISecret. */
function validSignature(req: IncomingMessage): boolean {
  const [, apiSecret, apiKey] = KEY.split('|');
  const url = new URL(req.url ?? '/', 'http://fake');
  const date = url.searchParams.get('date') ?? '';
  const host = url.searchParams.get('host') ?? '';
  if (host !== req.headers.host) return false;
  const origin = `host: ${host}\ndate: ${date}\nGET ${url.pathname} HTTP/1.1`;
  const signature = createHmac('sha256', apiSecret!).update(origin).digest('base64');
  const expected = `api_key="${apiKey}", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`;
  return Buffer.from(url.searchParams.get('authorization') ?? '', 'base64').toString() === expected;
}

/**
 * The Spark WebSocket fake: refuses a bad signature at the handshake (HTTP 401, as iFlytek does), then answers
 * the request frame with the fixture frames, or the error frame when asked to fail or the request is wrong.
 */
export async function sparkUpgrade(req: IncomingMessage, socket: Duplex, fail: boolean, record: (body: unknown) => void): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://fake').pathname;
  if (!validSignature(req) || !DOMAINS[path]) {
    socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: 29\r\n\r\n{"message":"HMAC signature"}\n');
    return;
  }
  const ws = acceptWebSocket(req, socket);
  const request = JSON.parse(await ws.firstMessage);
  record(request);
  const valid = request?.header?.app_id === KEY.split('|')[0] && request?.parameter?.chat?.domain === DOMAINS[path];
  for (const frame of fail || !valid ? [ERROR_FRAME] : FRAMES) ws.sendText(JSON.stringify(frame));
  ws.close();
}
