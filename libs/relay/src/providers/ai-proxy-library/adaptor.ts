import { buildProviderRequest } from '@gw/upstream';
import type { ChannelAdaptor } from '../types.js';
import { aiProxyLibraryCodec } from './codec.js';

/**
 * AI Proxy knowledge base (type 21): POST {base}/api/library/ask with a Bearer key; the knowledge-base id
 * is the channel's `other` field.
 */
export const aiProxyLibraryAdaptor: ChannelAdaptor = {
  format: 'ai_proxy_library',
  codec: aiProxyLibraryCodec,
  buildChatRequest: (call) =>
    buildProviderRequest(call.channel.upstream, '/api/library/ask', { authorization: `Bearer ${call.channel.upstream.key}` }, call.stream),
  finishBody: (body, call) => ({ ...body, libraryId: call.channel.other?.trim() ?? '' }),
};
