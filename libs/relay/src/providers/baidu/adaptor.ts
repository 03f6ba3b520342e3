import { buildProviderRequest } from '@gw/upstream';
import type { AdaptorCall, ChannelAdaptor } from '../types.js';
import { baiduAccessToken } from './access-token.js';
import { baiduCodec, baiduEmbeddingShape } from './codec.js';
import { baiduPath } from './endpoints.js';

/** The model's endpoint on the channel's origin; the access token is added when the call is sent. */
const build = (call: AdaptorCall) => buildProviderRequest(call.channel.upstream, baiduPath(call.model), {}, call.stream);

/**
 * Baidu Wenxin / ERNIE v1 (type 15): POST {base}/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/{endpoint}
 * ?access_token=… (embeddings under …/embeddings/{endpoint}); the token comes from the `APIKey|SecretKey`
 * key through Baidu's OAuth endpoint and is cached until it expires.
 */
export const baiduAdaptor: ChannelAdaptor = {
  format: 'baidu',
  codec: baiduCodec,
  buildChatRequest: build,
  embeddings: { ...baiduEmbeddingShape, buildRequest: build },
  async send(built, init, { call, http }) {
    const token = await baiduAccessToken(call.channel.upstream, http, init.signal);
    const url = new URL(built.url);
    url.searchParams.set('access_token', token);
    return http.sendBuilt({ ...built, url: url.toString() }, init);
  },
};
