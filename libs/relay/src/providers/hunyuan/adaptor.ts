import { buildProviderRequest, UpstreamError } from '@gw/upstream';
import type { ChannelAdaptor } from '../types.js';
import { hunyuanCodec } from './codec.js';
import { HUNYUAN_ACTION, HUNYUAN_VERSION, hunyuanKey, tc3Authorization } from './tc3.js';

/**
 * Tencent Hunyuan (type 23): POST {base}/ with X-TC-Action ChatCompletions, X-TC-Version 2023-09-01,
 * X-TC-Timestamp and a TC3-HMAC-SHA256 Authorization signed with the SecretId/SecretKey of the
 * `AppId|SecretId|SecretKey` key. The signature covers the exact body, so it is made when the call is sent.
 */
export const hunyuanAdaptor: ChannelAdaptor = {
  format: 'hunyuan',
  codec: hunyuanCodec,
  buildChatRequest(call) {
    const headers = { 'x-tc-action': HUNYUAN_ACTION, 'x-tc-version': HUNYUAN_VERSION };
    return buildProviderRequest(call.channel.upstream, '/', headers, call.stream);
  },
  send(built, init, { call, http }) {
    let key: ReturnType<typeof hunyuanKey>;
    try {
      key = hunyuanKey(call.channel.upstream.key);
    } catch (error) {
      return Promise.reject(new UpstreamError('unsupported', (error as Error).message));
    }
    const payload = JSON.stringify(init.body ?? {});
    const timestamp = Math.floor(Date.now() / 1000);
    const host = new URL(built.url).host;
    const authorization = tc3Authorization({ secretId: key.secretId, secretKey: key.secretKey, host, payload, timestamp });
    const headers = { ...built.headers, 'x-tc-timestamp': String(timestamp), authorization };
    return http.sendBuilt({ ...built, headers }, init);
  },
};
