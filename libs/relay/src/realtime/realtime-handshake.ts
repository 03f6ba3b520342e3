import { type IncomingHttpHeaders, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { REQUEST_ID_HEADER, withRequestId } from '@gw/core';
import type { CancelSignal } from '@gw/upstream';
import type { RelayError } from '../pipeline/relay-error.js';

/** The subprotocol a browser offers its key in (new-api reads it as the Authorization header). */
const KEY_PROTOCOL = 'openai-insecure-api-key.';
/** The subprotocols of the Realtime beta: OpenAI-Beta: realtime=v1 as a browser can say it. */
const BETA_PROTOCOL = 'openai-beta.realtime-v1';
/** The subprotocol new-api's upgrader answers with when the client offers it. */
export const REALTIME_PROTOCOL = 'realtime';
/** The refusal of a request on the Realtime route that is not a WebSocket handshake. */
export const NOT_A_HANDSHAKE = 'this route takes a WebSocket handshake (GET with Upgrade: websocket)';

/** RFC 6455's token characters (what the WebSocket server accepts in Sec-WebSocket-Protocol). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SOCKET_KEY = /^[+/0-9A-Za-z]{22}==$/;

export interface RealtimeHandshake {
  /** A key offered as `openai-insecure-api-key.<key>`, which stands for the Authorization header. */
  protocolKey?: string;
  /** The client speaks the beta protocol (OpenAI-Beta: realtime=v1, or its subprotocol). */
  beta: boolean;
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

/**
 * Reads an upgrade request for the Realtime route, or undefined when it is not a WebSocket handshake the server
 * would accept (method, Upgrade, key, version, well-formed subprotocols): it is refused before any work is done.
 */
export function readHandshake(method: string | undefined, headers: IncomingHttpHeaders): RealtimeHandshake | undefined {
  if (method !== 'GET' || headerText(headers.upgrade).toLowerCase() !== 'websocket') return undefined;
  if (!SOCKET_KEY.test(headerText(headers['sec-websocket-key']).trim())) return undefined;
  const version = headerText(headers['sec-websocket-version']).trim();
  if (version !== '13' && version !== '8') return undefined;
  const offered = headerText(headers['sec-websocket-protocol']);
  const protocols = offered.trim() ? offered.split(',').map((p) => p.trim()) : [];
  if (protocols.some((p) => !TOKEN.test(p)) || new Set(protocols).size !== protocols.length) return undefined;
  const keyed = protocols.find((p) => p.startsWith(KEY_PROTOCOL) && p.length > KEY_PROTOCOL.length);
  const betaHeader = headerText(headers['openai-beta']).toLowerCase().includes('realtime=v1');
  return {
    protocolKey: keyed?.slice(KEY_PROTOCOL.length),
    beta: betaHeader || protocols.includes(BETA_PROTOCOL),
  };
}

/**
 * A refusal before the upgrade: a plain HTTP answer with the relay's error body, its message ending with the
 * request id, and the connection closed (nothing was switched).
 */
export function refuseUpgrade(socket: Duplex, error: RelayError, requestId: string): void {
  writeHttp(socket, error.httpStatus, error.body(withRequestId(error.message, requestId)), requestId);
}

/** An HTTP answer written on the raw socket of an upgrade request, then the connection is ended. */
export function writeHttp(socket: Duplex, status: number, body: unknown, requestId?: string): void {
  if (socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const text = JSON.stringify(body);
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(text)}`,
    'X-Content-Type-Options: nosniff',
    ...(requestId ? [`${REQUEST_ID_HEADER}: ${requestId}`] : []),
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${text}`);
}

/** The error event new-api sends on the socket before it closes it (helper.WssError). */
export function errorEvent(error: RelayError, requestId: string): string {
  return JSON.stringify({ type: 'error', event_id: `evt_${requestId}`, error: error.body(withRequestId(error.message, requestId)).error });
}

/**
 * Fires once when the client's socket closes while the handshake is being worked on (authentication, the
 * reserve, the upstream connect): the upstream connect is then cancelled and the reserve given back.
 */
export class SocketGone implements CancelSignal {
  aborted = false;
  private listener?: () => void;

  constructor(private readonly socket: Duplex) {
    socket.once('close', this.onClose);
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.listener = listener;
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.listener === listener) this.listener = undefined;
  }

  /** The socket was switched to the session (or refused): stop watching it. */
  release(): void {
    this.socket.off('close', this.onClose);
    this.listener = undefined;
  }

  private readonly onClose = (): void => {
    if (this.aborted) return;
    this.aborted = true;
    const listener = this.listener;
    this.listener = undefined;
    listener?.();
  };
}
