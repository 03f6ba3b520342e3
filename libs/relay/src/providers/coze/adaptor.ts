import { buildProviderRequest } from '@gw/upstream';
import type { ChannelAdaptor } from '../types.js';

/**
 * Coze (type 49): chat v3 at POST {base}/v3/chat with the personal access token as bearer, as new-api calls it.
 * The bot is the channel's `other` (bot ID), else the model name; the call is always streamed (see the codec).
 */
export const cozeAdaptor: ChannelAdaptor = {
  format: 'coze',
  streamOnly: true,
  buildChatRequest: (call) =>
    buildProviderRequest(call.channel.upstream, '/v3/chat', { authorization: `Bearer ${call.channel.upstream.key}` }, true),
  finishBody: (body, call) => ({ bot_id: call.channel.upstream.other?.trim() || call.model, ...body }),
};
