import { buildProviderRequest } from '@gw/upstream';
import type { ChannelAdaptor } from '../types.js';

/**
 * Dify (type 37): a chat app (chatflow or agent) at POST {base}/v1/chat-messages with the app's API key as
 * bearer, as new-api calls it. The model name only routes to the channel: the app decides which model answers.
 */
export const difyAdaptor: ChannelAdaptor = {
  format: 'dify',
  buildChatRequest: (call) =>
    buildProviderRequest(call.channel.upstream, '/v1/chat-messages', { authorization: `Bearer ${call.channel.upstream.key}` }, call.stream),
};
