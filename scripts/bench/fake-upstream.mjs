// A minimal OpenAI-compatible provider for `npm run bench` (plain JS twin of test/fake-upstream, chat
// only): JSON and SSE answers with usage, no artificial delay, so the bench measures the gateway alone.
// Run as a child process; prints `{"port": n}` on its first stdout line.
import { createServer } from 'node:http';

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
  const chunk = (delta, finish = null, extra = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  let out = chunk({ role: 'assistant', content: '' });
  for (const word of WORDS) out += chunk({ content: word });
  out += chunk({}, 'stop');
  if (body.stream_options?.include_usage)
    out += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: USAGE })}\n\n`;
  res.end(`${out}data: [DONE]\n\n`);
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
    if (req.url.startsWith('/v1/models')) return json(res, 200, { object: 'list', data: [{ id: 'bench-model', object: 'model' }] });
    json(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
