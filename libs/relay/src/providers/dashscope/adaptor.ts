import { buildProviderRequest } from '@gw/upstream';
import type { AdaptorCall, ChannelAdaptor } from '../types.js';
import { dashScopeCodec, dashScopeEmbeddingShape } from './codec.js';

const CHAT_PATH = '/api/v1/services/aigc/text-generation/generation';
const EMBEDDING_PATH = '/api/v1/services/embeddings/text-embedding/text-embedding';

function headers(call: AdaptorCall): Record<string, string> {
  const out: Record<string, string> = { authorization: `Bearer ${call.channel.upstream.key}` };
  if (call.stream) out['x-dashscope-sse'] = 'enable';
  // The channel's `other` field is the DashScope plugin parameter, as in new-api.
  const plugin = call.channel.other?.trim();
  if (plugin) out['x-dashscope-plugin'] = plugin;
  return out;
}

/**
 * Alibaba DashScope / Qwen (type 17), native API: POST {base}/api/v1/services/aigc/text-generation/generation
 * with a Bearer key (`X-DashScope-SSE: enable` to stream, incremental output); embeddings at
 * …/embeddings/text-embedding/text-embedding.
 */
export const dashScopeAdaptor: ChannelAdaptor = {
  format: 'dashscope',
  codec: dashScopeCodec,
  buildChatRequest: (call) => buildProviderRequest(call.channel.upstream, CHAT_PATH, headers(call), call.stream),
  embeddings: {
    ...dashScopeEmbeddingShape,
    buildRequest: (call) => buildProviderRequest(call.channel.upstream, EMBEDDING_PATH, headers({ ...call, stream: false }), false),
  },
};
