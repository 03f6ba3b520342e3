import { buildProviderRequest } from '@gw/upstream';
import { wholeAnswerAsSse } from '../native/whole-answer-stream.js';
import type { ChannelAdaptor } from '../types.js';
import { palmCodec } from './codec.js';

/** new-api calls chat-bison-001 for its `PaLM-2` model name; other names are PaLM model ids already. */
const upstreamModel = (model: string) => (model === 'PaLM-2' ? 'chat-bison-001' : model);

/**
 * Google PaLM 2 (type 11): POST {base}/v1beta2/models/{model}:generateMessage with `x-goog-api-key`. PaLM
 * cannot stream: a stream request is answered from the whole answer, sent as one chunk (as new-api does).
 */
export const palmAdaptor: ChannelAdaptor = {
  format: 'palm',
  codec: palmCodec,
  buildChatRequest(call) {
    const path = `/v1beta2/models/${encodeURIComponent(upstreamModel(call.model))}:generateMessage`;
    return buildProviderRequest(call.channel.upstream, path, { 'x-goog-api-key': call.channel.upstream.key }, false);
  },
  async send(built, init, { http }) {
    const response = await http.sendBuilt(built, { ...init, stream: false });
    return init.stream ? wholeAnswerAsSse(response) : response;
  },
};
