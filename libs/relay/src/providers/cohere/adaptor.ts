import { buildProviderRequest } from '@gw/upstream';
import { NdjsonFramer } from '../ndjson-framer.js';
import type { ChannelAdaptor } from '../types.js';
import { cohereRerank } from './rerank.js';

/**
 * Cohere (type 34): chat v1 at POST {base}/v1/chat with the key as bearer, as new-api calls it; its stream is one
 * JSON object per line (application/stream+json), not SSE; `other` = `v2` uses chat v2 instead. Rerank at
 * POST {base}/v1/rerank.
 */
/** Cohere chat v2 (channel `other` = `v2`): POST {base}/v2/chat, OpenAI-like messages, an SSE stream. */
const cohereV2Adaptor: ChannelAdaptor = {
  format: 'cohere_v2',
  buildChatRequest: (call) =>
    buildProviderRequest(call.channel.upstream, '/v2/chat', { authorization: `Bearer ${call.channel.upstream.key}` }, call.stream),
  endpoints: { rerank: cohereRerank },
};

export const cohereAdaptor: ChannelAdaptor = {
  format: 'cohere',
  forModel: (_model, channel) => (channel.upstream.other?.trim().toLowerCase() === 'v2' ? cohereV2Adaptor : cohereAdaptor),
  buildChatRequest(call) {
    const built = buildProviderRequest(
      call.channel.upstream,
      '/v1/chat',
      { authorization: `Bearer ${call.channel.upstream.key}` },
      call.stream,
    );
    if (call.stream) built.headers = { ...built.headers, accept: 'application/stream+json' };
    return built;
  },
  streamFraming: { contentType: 'application/stream+json', reader: () => new NdjsonFramer() },
  endpoints: { rerank: cohereRerank },
};
