import { CHAT, EMBEDDING, ERROR, ERROR_STATUS, STREAM } from '../../fixtures/providers/ollama/fixtures.js';
import { type NativeExchange, type ProviderFake, sendJson, sendText } from './types.js';

/** Models the fake Ollama has; /api/pull adds one, /api/delete removes one. */
export const OLLAMA_VERSION = '0.5.7';
const installed = new Set(['llama3.1']);
const PULL_PROGRESS = [
  { status: 'pulling manifest' },
  { status: 'pulling 6a0746a1ec1a', digest: 'sha256:6a0746a1ec1a', total: 4661224676, completed: 1048576 },
  { status: 'pulling 6a0746a1ec1a', digest: 'sha256:6a0746a1ec1a', total: 4661224676, completed: 4661224676 },
  { status: 'verifying sha256 digest' },
  { status: 'writing manifest' },
  { status: 'success' },
];

/** Model management as Ollama's API reference describes /api/pull, /api/delete and /api/version. */
function manage({ req, res, path, body }: NativeExchange) {
  if (path === '/api/version') return sendJson(res, 200, { version: OLLAMA_VERSION });
  const name = String(body?.model ?? body?.name ?? '');
  if (path === '/api/delete') {
    if (req.method !== 'DELETE') return sendJson(res, 405, { error: 'method not allowed' });
    if (!installed.delete(name)) return sendJson(res, 404, { error: `model '${name}' not found` });
    res.writeHead(200);
    return res.end();
  }
  if (name.startsWith('missing')) return sendJson(res, 500, { error: 'pull model manifest: file does not exist' });
  installed.add(name);
  if (body?.stream === false) return sendJson(res, 200, { status: 'success' });
  sendText(res, 'application/x-ndjson', PULL_PROGRESS.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

/** Ollama: /api/chat (NDJSON when streaming), /api/embed, and the model management calls. */
export const ollamaFake: ProviderFake = {
  name: 'ollama',
  owns: ({ path }) => ['/api/chat', '/api/embed', '/api/pull', '/api/delete', '/api/version'].includes(path),
  answer(exchange) {
    const { res, path, body, fail } = exchange;
    if (path === '/api/pull' || path === '/api/delete' || path === '/api/version') return manage(exchange);
    if (fail) return sendJson(res, ERROR_STATUS, ERROR);
    if (path === '/api/embed') return sendJson(res, 200, EMBEDDING);
    if (body?.stream) return sendText(res, 'application/x-ndjson', STREAM);
    sendJson(res, 200, CHAT);
  },
};
