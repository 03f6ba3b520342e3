// A minimal OpenAI-compatible provider for `npm run bench` (plain JS twin of test/fake-upstream, chat
// only): JSON and SSE answers with usage, no artificial delay, so the bench measures the gateway alone.
// Two more models serve the streams scenario: SLOW_MODEL sends one chunk every BENCH_CHUNK_MS (max_tokens
// chunks in all), FLOOD_MODEL sends chunks as fast as the gateway takes them (for clients that stop reading).
// Run as a child process; prints `{"port": n}` on its first stdout line.
import { createServer } from 'node:http';
import { FLOOD_MODEL, SLOW_MODEL } from './models.mjs';

const CHUNK_MS = Number(process.env.BENCH_CHUNK_MS ?? 200);

const USAGE = { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 };
const WORDS = ['Hello', ' from', ' the', ' bench', '.'];

function json(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function chat(_req, body, res) {
  const id = 'chatcmpl-bench';
  const created = Math.floor(Date.now() / 1000);
  const model = body.model ?? 'bench-model';
  const chunk = (delta, finish = null, extra = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  if (body.stream && model === SLOW_MODEL) return slowStream(res, body, chunk);
  if (body.stream && model === FLOOD_MODEL) return floodStream(res, chunk);
  if (!body.stream) {
    return json(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: WORDS.join('') }, finish_reason: 'stop' }],
      usage: USAGE,
    });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let out = chunk({ role: 'assistant', content: '' });
  for (const word of WORDS) out += chunk({ content: word });
  out += chunk({}, 'stop');
  if (body.stream_options?.include_usage)
    out += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: USAGE })}\n\n`;
  res.end(`${out}data: [DONE]\n\n`);
}

/**
 * Streams waiting for their next chunk, by phase: one timer serves them all (thousands of streams with a
 * timer each would make this process, not the gateway, the bottleneck). A phase is 1 ms: independent
 * streams of a real provider do not tick together, and with 10 ms phases 5,000 streams at 200 ms sent
 * 250 chunks in the same instant every 10 ms, a burst of several ms of gateway work that a normal request
 * queued behind (and a load no provider produces).
 */
const TICK_MS = 1;
const buckets = Array.from({ length: Math.max(1, Math.round(CHUNK_MS / TICK_MS)) }, () => new Set());
let tick = 0;
/** SSE events the slow streams have written so far (GET /bench/sent): the other end of the clients' count. */
let slowEventsSent = 0;
let ticksDone = 0;
const clockStart = performance.now();
setInterval(() => {
  // On a loaded machine the interval fires late: serve every tick that is due, so the offered chunk rate
  // stays streams / CHUNK_MS instead of drifting below it (at most one pass over all the buckets).
  const dueTotal = Math.floor((performance.now() - clockStart) / TICK_MS);
  const due = Math.min(buckets.length, dueTotal - ticksDone);
  ticksDone = dueTotal;
  for (let i = 0; i < due; i++) {
    tick = (tick + 1) % buckets.length;
    for (const stream of buckets[tick]) stream.next();
  }
}, TICK_MS).unref();

/** A realistic token chunk every CHUNK_MS, `max_tokens` of them, then usage and [DONE]. */
function slowStream(res, body, chunk) {
  const total = Math.max(1, Number(body.max_tokens) || 50);
  const bucket = buckets[(tick + 1 + Math.floor(Math.random() * buckets.length)) % buckets.length];
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let sent = 0;
  const stream = {
    next() {
      sent++;
      if (sent < total) {
        slowEventsSent++;
        res.write(chunk({ content: WORDS[sent % WORDS.length] }));
        return;
      }
      bucket.delete(stream);
      slowEventsSent += 3;
      res.end(`${chunk({}, 'stop')}${chunk({}, null, { choices: [], usage: USAGE })}data: [DONE]\n\n`);
    },
  };
  slowEventsSent++;
  res.write(chunk({ role: 'assistant', content: '' }));
  bucket.add(stream);
  res.on('close', () => bucket.delete(stream));
}

/** Chunks as fast as the reader takes them (honouring 'drain'), until the reader goes away. */
function floodStream(res, chunk) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const block = chunk({ content: 'flood '.repeat(100) }).repeat(16);
  let open = true;
  res.on('close', () => (open = false));
  const pump = () => {
    while (open && res.write(block));
    if (open) res.once('drain', pump);
  };
  pump();
}

const server = createServer((req, res) => {
  const parts = [];
  req.on('data', (part) => parts.push(part));
  req.on('end', () => {
    let body = {};
    try {
      body = parts.length ? JSON.parse(Buffer.concat(parts).toString('utf8')) : {};
    } catch {
      return json(res, 400, { error: { message: 'invalid JSON', type: 'invalid_request_error' } });
    }
    if (req.method === 'POST' && req.url.startsWith('/v1/chat/completions')) return chat(req, body, res);
    if (req.url === '/bench/sent') return json(res, 200, { events: slowEventsSent });
    if (req.url.startsWith('/v1/models')) return json(res, 200, { object: 'list', data: [{ id: 'bench-model', object: 'model' }] });
    json(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
  });
});
server.keepAliveTimeout = 60_000;
server.maxConnections = Infinity;
// The gateway opens a connection here per stream (500/s in the streams scenario): Node's default listen queue
// (511) overflowed whenever this process lagged on a busy core, the kernel dropped the handshakes, and streams
// failed with a 502 after the gateway's connect timeout (SYN retries at 1, 3, 7 s ...).
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => console.log(JSON.stringify({ port: server.address().port })));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
