import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { requireOnFirstUse } from '@gw/core';
import { addressRefused, publicOnlyLookup, refusedLiteral } from './public-only.js';
import type { BuiltRequest } from './upstream-url.js';
import { type CancelSignal, UpstreamError } from './upstream.types.js';

/** The WebSocket package, loaded by the first socket a relay opens (most gateways never open one). */
const ws = requireOnFirstUse<typeof import('ws')>('ws');

/** The most of a refused handshake's body kept for the client's error. */
const REFUSAL_BODY_BYTES = 64 * 1024;

/** What opening a socket came to: the open socket (paused: resume it to read), or the provider's answer when it refused the upgrade. */
export type SocketOpening = { socket: WebSocket } | { refused: { status: number; text: string } };

export interface SocketOptions {
  /** The largest message accepted from the provider; a bigger one closes the socket (1009). */
  maxPayload: number;
  /** Connect, TLS and the 101 answer together. */
  handshakeTimeoutMs: number;
  /** The checking lookup applies (UpstreamClient.holdsPublic). */
  publicOnly: boolean;
  signal?: CancelSignal;
}

/**
 * Opens a WebSocket to a provider with the rules of every upstream call: a redirect is never followed (the key
 * stays on the channel's host), and a channel whose base URL must stay public connects only to public
 * addresses (a literal is refused before connecting, a name goes through the checking lookup). Resolves with
 * the open socket or the refusal (status and a capped body); rejects with an UpstreamError when no answer came.
 */
export function openUpstreamSocket(built: BuiltRequest, options: SocketOptions): Promise<SocketOpening> {
  if (options.signal?.aborted) return Promise.reject(new UpstreamError('aborted', 'the request was aborted'));
  if (options.publicOnly && refusedLiteral(new URL(built.url).hostname)) return Promise.reject(addressRefused());
  return new Promise((resolve, reject) => {
    const socket = new (ws().WebSocket)(built.url, {
      headers: built.headers,
      handshakeTimeout: options.handshakeTimeoutMs,
      maxPayload: options.maxPayload,
      followRedirects: false,
      perMessageDeflate: false,
      ...(options.publicOnly ? { lookup: publicOnlyLookup } : {}),
    });
    let done = false;
    const finish = (outcome: () => void) => {
      if (done) return;
      done = true;
      options.signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    function onAbort() {
      finish(() => reject(new UpstreamError('aborted', 'the request was aborted')));
      socket.terminate();
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
    // Paused until the caller listens (the provider may speak first): nothing it sends in between is lost.
    socket.once('open', () => {
      socket.pause();
      finish(() => resolve({ socket }));
    });
    socket.once('unexpected-response', (request, response: IncomingMessage) => {
      readCapped(response).then((text) => {
        request.destroy();
        finish(() => resolve({ refused: { status: response.statusCode ?? 502, text } }));
      });
    });
    socket.on('error', (error) => finish(() => reject(socketError(error))));
  });
}

function socketError(error: Error): UpstreamError {
  if (error instanceof UpstreamError) return error;
  if (/handshake has timed out/i.test(error.message)) return new UpstreamError('timeout', 'upstream WebSocket handshake timed out');
  const code = (error as NodeJS.ErrnoException).code;
  return new UpstreamError('connect', `could not open the upstream WebSocket${code ? ` (${code})` : ''}`);
}

/** The body of a refused handshake, up to REFUSAL_BODY_BYTES (never rejects). */
function readCapped(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const end = () => resolve(Buffer.concat(chunks).toString('utf8'));
    response.on('data', (chunk: Buffer) => {
      if (size >= REFUSAL_BODY_BYTES) return;
      chunks.push(chunk.subarray(0, REFUSAL_BODY_BYTES - size));
      size += chunk.length;
      if (size >= REFUSAL_BODY_BYTES) {
        response.destroy();
        end();
      }
    });
    response.once('end', end);
    response.once('error', end);
    response.once('close', end);
  });
}
