// Stream clients for the streams scenario, in their own process (thousands of sockets and their parsing
// must not slow the process that times normal requests). Raw sockets instead of an HTTP client: with 5,000
// streams the client's own per-chunk cost matters. Driven over IPC by scripts/bench/streams.mjs:
//   { cmd: 'open', count, perSecond, chunks }  reading streams of SLOW_MODEL, `chunks` chunks each
//   { cmd: 'stall', count }                    streams of FLOOD_MODEL whose clients never read
//   { cmd: 'leave' }                           the stalled clients close their sockets
//   { cmd: 'stats' }                           answers with the counters below
import { connect } from 'node:net';
import { FLOOD_MODEL, SLOW_MODEL } from './models.mjs';

const [host, port] = new URL(process.env.BENCH_GATEWAY_URL).host.split(':');
const KEY = process.env.BENCH_KEY;
const NEWLINE = 10;

const stats = {
  opened: 0,
  done: 0,
  failed: 0,
  /** Why streams failed: status line, socket error, closed before [DONE]. */
  reasons: {},
  /** SSE events received (each ends with a blank line). */
  chunks: 0,
  firstByteMs: [],
  /** Streams whose first event arrived. */
  started: 0,
  stalledOpen: 0,
  stalledAnswered: 0,
};

function request(model, chunks) {
  const body = JSON.stringify({
    model,
    stream: true,
    max_tokens: chunks,
    messages: [{ role: 'user', content: 'Stream to the bench.' }],
  });
  return (
    `POST /v1/chat/completions HTTP/1.1\r\nHost: ${host}:${port}\r\nAuthorization: Bearer ${KEY}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

function fail(reason) {
  stats.failed++;
  stats.reasons[reason] = (stats.reasons[reason] ?? 0) + 1;
}

/** One reading stream: counts events, succeeds on `[DONE]` followed by the server closing. */
function openStream(chunks) {
  stats.opened++;
  const started = performance.now();
  const socket = connect({ host, port: Number(port) });
  let first = true;
  let settled = false;
  let sawDone = false;
  let counted = false;
  let lastByte = 0;
  socket.setNoDelay(true);
  socket.on('connect', () => socket.write(request(SLOW_MODEL, chunks)));
  socket.on('data', (data) => {
    if (first) {
      first = false;
      stats.firstByteMs.push(performance.now() - started);
      if (data.toString('latin1', 0, 12) !== 'HTTP/1.1 200') {
        settled = true;
        fail(`status ${data.toString('latin1', 9, 12)}`);
        socket.destroy();
        return;
      }
    }
    const before = stats.chunks;
    if (lastByte === NEWLINE && data[0] === NEWLINE) stats.chunks++;
    for (let at = data.indexOf('\n\n'); at >= 0; at = data.indexOf('\n\n', at + 2)) stats.chunks++;
    lastByte = data[data.length - 1];
    if (!counted && stats.chunks > before) {
      counted = true;
      stats.started++;
    }
    if (!sawDone && data.includes('[DONE]')) sawDone = true;
  });
  socket.on('error', (error) => {
    if (settled) return;
    settled = true;
    fail(error.code ?? error.message);
  });
  socket.on('close', () => {
    if (settled) return;
    settled = true;
    if (sawDone) stats.done++;
    else fail('closed before [DONE]');
  });
}

function openAll({ count, perSecond, chunks }) {
  const perTick = Math.max(1, Math.round(perSecond / 100));
  let left = count;
  const timer = setInterval(() => {
    for (let i = 0; i < perTick && left > 0; i++, left--) openStream(chunks);
    if (left === 0) clearInterval(timer);
  }, 10);
}

const stalled = [];

/** Clients that send their request and never read: their kernel buffers fill, then the gateway's writes stall. */
function stallAll({ count }) {
  for (let i = 0; i < count; i++) {
    const socket = connect({ host, port: Number(port) });
    socket.on('connect', () => {
      stats.stalledOpen++;
      socket.write(request(FLOOD_MODEL, 1));
      // Read only the status line, then stop: no 'data' listener, so the socket is never read again.
      socket.once('readable', () => {
        stats.stalledAnswered++;
        socket.pause();
      });
    });
    socket.on('error', () => undefined);
    stalled.push(socket);
  }
}

process.on('message', (message) => {
  if (message.cmd === 'open') openAll(message);
  else if (message.cmd === 'stall') stallAll(message);
  else if (message.cmd === 'leave') for (const socket of stalled.splice(0)) socket.destroy();
  else if (message.cmd === 'stats') {
    process.send({
      ...stats,
      firstByteMs: undefined,
      firstByteP50: percentile(stats.firstByteMs, 50),
      firstByteMax: Math.max(0, ...stats.firstByteMs),
    });
  }
});

function percentile(samples, p) {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
