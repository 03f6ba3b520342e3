import { redactChannelText } from '@gw/channel';
import type { BuiltRequest, UpstreamRequestInit, UpstreamResponse } from '@gw/upstream';
import type { AdaptorCall, EmbeddingAdaptor, ProviderCodec } from '../providers/types.js';
import { sendAnswer } from '../stream/json-responder.js';
import type { Usage } from '../stream/usage.js';
import { exchangeJson } from './json-exchange.js';
import type { Attempt, ForwardInput } from './upstream-call.js';

export interface NativeEmbeddingCall {
  adaptor: EmbeddingAdaptor;
  codec: ProviderCodec;
  call: AdaptorCall;
  input: ForwardInput;
  send(built: BuiltRequest, init: UpstreamRequestInit): Promise<UpstreamResponse>;
  shouldRetryStatus(status: number): boolean;
}

/**
 * `/v1/embeddings` to a provider with its own embeddings API (Baidu, DashScope, Ollama): the OpenAI request
 * in the provider's shape, its answer back in OpenAI's, billed on the provider's usage (else the prompt count).
 */
export async function nativeEmbeddingAttempt(job: NativeEmbeddingCall): Promise<Attempt> {
  const { call, input } = job;
  const channel = call.channel;
  const upstreamModel = call.model;
  const exchange = await exchangeJson({
    call,
    input,
    codec: job.codec,
    send: () => {
      const body = job.adaptor.requestFromOpenAi(input.request.body, upstreamModel);
      return job.send(job.adaptor.buildRequest(call), { body, stream: false, signal: input.signal });
    },
    shouldRetryStatus: job.shouldRetryStatus,
  });
  if ('failure' in exchange) return exchange.failure;
  const { parsed, headersAt } = exchange.answer;
  const { response: answer, usage: reported } = job.adaptor.responseToOpenAi(parsed, input.request.model);
  const usage: Usage = reported ?? { promptTokens: input.promptTokens, completionTokens: 0, cachedTokens: 0 };
  const out = JSON.stringify({
    ...answer,
    model: input.request.model,
    usage: { prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens + usage.completionTokens },
  });
  sendAnswer(input.res, redactChannelText(out, channel));
  return { ok: true, upstreamModel, usage, localCount: !reported, frtMs: Math.round(headersAt - input.startedAt), retryable: false };
}
