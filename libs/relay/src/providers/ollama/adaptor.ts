import { buildProviderRequest } from '@gw/upstream';
import type { AdaptorCall, ChannelAdaptor } from '../types.js';
import { ollamaCodec, ollamaEmbeddingShape } from './codec.js';
import { ndjsonAsSse } from './ndjson.js';

/** The key is optional for Ollama (a reverse proxy in front of it may want one). */
const auth = (call: AdaptorCall): Record<string, string> =>
  call.channel.upstream.key ? { authorization: `Bearer ${call.channel.upstream.key}` } : {};

/**
 * Ollama (type 4), native API as new-api calls it: POST {base}/api/chat (NDJSON stream) and
 * {base}/api/embed for embeddings.
 */
export const ollamaAdaptor: ChannelAdaptor = {
  format: 'ollama',
  codec: ollamaCodec,
  buildChatRequest: (call) => buildProviderRequest(call.channel.upstream, '/api/chat', auth(call), call.stream),
  embeddings: {
    ...ollamaEmbeddingShape,
    buildRequest: (call) => buildProviderRequest(call.channel.upstream, '/api/embed', auth(call), false),
  },
  async send(built, init, { http }) {
    const response = await http.sendBuilt(built, init);
    const type = String(response.headers['content-type'] ?? '');
    return init.stream && response.status === 200 && !type.includes('text/event-stream') && !type.includes('application/json')
      ? ndjsonAsSse(response)
      : response;
  },
};
