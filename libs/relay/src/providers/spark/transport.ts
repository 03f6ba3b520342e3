import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { requireOnFirstUse } from '@gw/core';
import { type UpstreamRequestInit, UpstreamError, type UpstreamResponse } from '@gw/upstream';
import { parseJsonObject } from '../sse-events.js';
import type { Json } from '../types.js';
import { joinFrames } from './codec.js';

/** undici's WebSocket (Node 20 has no global one), loaded by the first Spark call. */
const undici = requireOnFirstUse<typeof import('undici')>('undici');

/** Spark answers frame by frame; a silent socket this long is a dead call. */
const IDLE_MS = 60_000;

function jsonResponse(body: Json): UpstreamResponse {
  const text = JSON.stringify(body);
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: Readable.from([Buffer.from(text)]),
    text: async () => text,
    json: async <T>() => JSON.parse(text) as T,
  };
}

/**
 * One Spark call over its WebSocket, answered as if it came over HTTP: a stream as server-sent events (one
 * `data:` per frame, as frames arrive, with back-pressure left to the socket's own buffering), a non-stream
 * call as one JSON frame. An error frame before any text becomes a JSON error, so the relay can still retry.
 * `dispatcher` (UpstreamClient.publicOnlyDispatcher) opens the socket's connection with the checking lookup when
 * the channel's base URL must stay public; a refused address fails as any connect failure does.
 */
export function sparkExchange(url: string, request: Json, init: UpstreamRequestInit, dispatcher?: Dispatcher): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    if (init.signal?.aborted) return reject(new UpstreamError('aborted', 'the request was aborted'));
    const { WebSocket } = undici();
    const socket = dispatcher ? new WebSocket(url, { dispatcher }) : new WebSocket(url);
    const frames: Json[] = [];
    let stream: Readable | undefined;
    let settled = false;
    let finished = false;
    let idle: NodeJS.Timeout | undefined;

    const cleanup = () => {
      clearTimeout(idle);
      init.signal?.removeEventListener('abort', onAbort);
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.close();
    };
    const fail = (error: UpstreamError) => {
      if (finished) return;
      finished = true;
      cleanup();
      if (!settled) {
        settled = true;
        reject(error);
      } else stream?.destroy(error);
    };
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => fail(new UpstreamError('timeout', 'Spark websocket went silent')), IDLE_MS);
    };
    function onAbort() {
      fail(new UpstreamError('aborted', 'the request was aborted'));
    }
    init.signal?.addEventListener('abort', onAbort, { once: true });
    armIdle();

    socket.addEventListener('open', () => socket.send(JSON.stringify(request)));
    socket.addEventListener('message', (event) => {
      if (finished) return;
      armIdle();
      const frame = typeof event.data === 'string' ? parseJsonObject(event.data) : undefined;
      if (!frame) return fail(new UpstreamError('bad_response', 'Spark sent a frame that is not JSON'));
      const errored = Number(frame.header?.code ?? 0) !== 0;
      const last = errored || Number(frame.header?.status) === 2;
      if (!settled && (errored || !init.stream)) {
        frames.push(frame);
        if (!last) return;
        settled = true;
        finished = true;
        cleanup();
        return resolve(jsonResponse(errored ? frame : joinFrames(frames)));
      }
      if (!stream) {
        stream = new Readable({
          read() {},
          destroy(error, callback) {
            // The client went away: the socket is closed with it.
            fail(new UpstreamError('aborted', 'the stream was abandoned'));
            callback(error);
          },
        });
        settled = true;
        resolve({
          status: 200,
          headers: { 'content-type': 'text/event-stream' },
          body: stream,
          text: () => Promise.reject(new Error('the Spark answer is being streamed')),
          json: () => Promise.reject(new Error('the Spark answer is being streamed')),
        });
      }
      stream.push(`data: ${JSON.stringify(frame)}\n\n`);
      if (last) {
        finished = true;
        cleanup();
        stream.push(null);
      }
    });
    socket.addEventListener('error', () => fail(new UpstreamError('connect', 'Spark websocket connection failed')));
    socket.addEventListener('close', () => fail(new UpstreamError('bad_response', 'Spark closed the websocket before the answer ended')));
  });
}
