import { buildProviderRequest, effectiveBaseUrl, UpstreamError } from '@gw/upstream';
import type { AdaptorCall, ChannelAdaptor } from '../types.js';
import { sparkCodec } from './codec.js';
import { sparkKey, sparkSignedUrl } from './signed-url.js';
import { sparkExchange } from './transport.js';
import { SPARK_HOST, sparkDomain, sparkPath, sparkVersion } from './versions.js';

/** The channel's base URL as a WebSocket origin (http → ws, https → wss), else iFlytek's own host. */
function socketBase(call: AdaptorCall): string {
  const base = effectiveBaseUrl(call.channel.upstream);
  return base ? base.replace(/^http/, 'ws') : SPARK_HOST;
}

/**
 * iFlytek Spark (type 18): a WebSocket call to {host}/{version}/chat signed from the `APPID|APISecret|APIKey`
 * key; the version comes from the model name (`SparkDesk-v3.5`) or the channel's `other` (default v2.1) and
 * decides the model domain. buildChatRequest describes the call (for the key checks and logs); send() makes it.
 */
export const sparkAdaptor: ChannelAdaptor = {
  format: 'spark',
  codec: sparkCodec,
  buildChatRequest(call) {
    const path = sparkPath(sparkVersion(call.model, call.channel.upstream.other));
    const target = { ...call.channel.upstream, baseUrl: socketBase(call).replace(/^ws/, 'http') };
    return buildProviderRequest(target, path, {}, call.stream);
  },
  finishBody(body, call) {
    const version = sparkVersion(call.model, call.channel.upstream.other);
    // The key is checked when the call is sent; here only its APPID part is read.
    const header = { ...(body.header as object), app_id: call.channel.upstream.key.split('|')[0]?.trim() ?? '' };
    const parameter = body.parameter as { chat?: object } | undefined;
    return { ...body, header, parameter: { chat: { ...parameter?.chat, domain: sparkDomain(version), auditing: 'default' } } };
  },
  send(built, init, { call, http }) {
    let key: ReturnType<typeof sparkKey>;
    try {
      key = safeKey(call);
    } catch (error) {
      return Promise.reject(error);
    }
    const path = new URL(built.url).pathname;
    const url = sparkSignedUrl(socketBase(call), path, key.apiKey, key.apiSecret);
    // A base URL checked public when saved is connected to only on public addresses (threats S5, DNS rebinding).
    return sparkExchange(url, init.body as Record<string, unknown>, init, http.publicOnlyDispatcher(built));
  },
};

function safeKey(call: AdaptorCall) {
  try {
    return sparkKey(call.channel.upstream.key);
  } catch (error) {
    throw new UpstreamError('unsupported', (error as Error).message);
  }
}
