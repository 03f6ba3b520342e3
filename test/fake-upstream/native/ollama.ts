import { CHAT, EMBEDDING, ERROR, ERROR_STATUS, STREAM } from '../../fixtures/providers/ollama/fixtures.js';
import { type ProviderFake, sendJson, sendText } from './types.js';

/** Ollama: /api/chat (NDJSON when streaming) and /api/embed. */
export const ollamaFake: ProviderFake = {
  name: 'ollama',
  owns: ({ path }) => path === '/api/chat' || path === '/api/embed',
  answer({ res, path, body, fail }) {
    if (fail) return sendJson(res, ERROR_STATUS, ERROR);
    if (path === '/api/embed') return sendJson(res, 200, EMBEDDING);
    if (body?.stream) return sendText(res, 'application/x-ndjson', STREAM);
    sendJson(res, 200, CHAT);
  },
};
