import { CHAT, EMBEDDING, ERROR, ERROR_STATUS, STREAM } from '../../fixtures/providers/dashscope/fixtures.js';
import { type ProviderFake, sendJson, sendText } from './types.js';

export const DASHSCOPE_KEY = 'sk-dashscope-fixture';

/** DashScope: Bearer key; text-generation streams only with X-DashScope-SSE: enable. */
export const dashScopeFake: ProviderFake = {
  name: 'dashscope',
  owns: ({ path }) => path.startsWith('/api/v1/services/'),
  answer({ req, res, path, fail }) {
    if (req.headers.authorization !== `Bearer ${DASHSCOPE_KEY}`)
      return sendJson(res, 401, { code: 'InvalidApiKey', message: 'Invalid API-key provided.', request_id: 'x' });
    if (fail) return sendJson(res, ERROR_STATUS, ERROR);
    if (path.startsWith('/api/v1/services/embeddings/')) return sendJson(res, 200, EMBEDDING);
    if (req.headers['x-dashscope-sse'] === 'enable') return sendText(res, 'text/event-stream', STREAM);
    sendJson(res, 200, CHAT);
  },
};
