import { CHAT, ERROR, LIBRARY_ID, STREAM } from '../../fixtures/providers/ai-proxy-library/fixtures.js';
import { type ProviderFake, sendJson, sendText } from './types.js';

/** AI Proxy knowledge base: /api/library/ask of a known library. */
export const aiProxyLibraryFake: ProviderFake = {
  name: 'ai_proxy_library',
  owns: ({ path }) => path === '/api/library/ask',
  answer({ res, body, fail }) {
    if (fail || body?.libraryId !== LIBRARY_ID) return sendJson(res, 200, ERROR);
    if (body.stream) return sendText(res, 'text/event-stream', STREAM);
    sendJson(res, 200, CHAT);
  },
};
