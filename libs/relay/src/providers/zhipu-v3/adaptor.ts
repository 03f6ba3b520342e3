import { buildProviderRequest, UpstreamError } from '@gw/upstream';
import type { ChannelAdaptor } from '../types.js';
import { zhipuV3Codec } from './codec.js';
import { zhipuToken } from './jwt.js';

/**
 * Zhipu ChatGLM v3 (type 16): POST {base}/api/paas/v3/model-api/{model}/invoke (sse-invoke to stream), the
 * JWT signed from the `id.secret` key in `Authorization` as is (no Bearer), as new-api calls it.
 */
export const zhipuV3Adaptor: ChannelAdaptor = {
  format: 'zhipu_v3',
  codec: zhipuV3Codec,
  buildChatRequest(call) {
    let token: string;
    try {
      token = zhipuToken(call.channel.upstream.key);
    } catch (error) {
      throw new UpstreamError('unsupported', (error as Error).message);
    }
    const path = `/api/paas/v3/model-api/${encodeURIComponent(call.model)}/${call.stream ? 'sse-invoke' : 'invoke'}`;
    return buildProviderRequest(call.channel.upstream, path, { authorization: token }, call.stream);
  },
};
