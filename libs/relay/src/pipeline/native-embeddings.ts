import { redactChannelText } from '@gw/channel';
import type { BuiltRequest, UpstreamRequestInit, UpstreamResponse } from '@gw/upstream';
import { parseJsonObject } from '../providers/sse-events.js';
import type { AdaptorCall, EmbeddingAdaptor, ProviderCodec } from '../providers/types.js';
import { sendAnswer } from '../stream/json-responder.js';
import type { Usage } from '../stream/usage.js';
import { RelayError } from './relay-error.js';
import { statusFailure, transportError, transportFailure, upstreamStatusError } from './upstream-error.js';
import { heldBack } from './answer-hold.js';
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
  const { call, input, codec } = job;
  const channel = call.channel;
  const upstreamModel = call.model;
  const failed = (error: RelayError, retryable: boolean, channelFault?: Attempt['channelFault']): Attempt => ({
    ok: false,
    upstreamModel,
    localCount: false,
    frtMs: 0,
    error,
    retryable,
    channelFault,
  });
  let response: UpstreamResponse;
  try {
    const body = job.adaptor.requestFromOpenAi(input.request.body, upstreamModel);
    response = await job.send(job.adaptor.buildRequest(call), { body, stream: false, signal: input.signal });
  } catch (error) {
    const failure = transportFailure(error, input.signal.aborted, channel);
    return failed(failure.error, failure.retryable, failure.channelFault);
  }
  const headersAt = performance.now();
  if (response.status !== 200) {
    const failure = await statusFailure(response, channel, job.shouldRetryStatus);
    return failed(failure.error, failure.retryable, failure.channelFault);
  }
  const held = await heldBack(input, upstreamModel);
  if (held) return held;
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    const relayError = transportError(error, channel);
    return failed(relayError, !input.signal.aborted, input.signal.aborted ? undefined : { message: relayError.message });
  }
  const parsed = parseJsonObject(text);
  if (!parsed)
    return failed(new RelayError('upstream answer is not a JSON object', 502, 'bad_response_body', 'upstream_error'), true, {
      status: 200,
      message: 'bad response body',
    });
  if (codec.isErrorBody(parsed)) {
    const message = codec.errorMessage?.(parsed);
    const error = upstreamStatusError(message ? JSON.stringify({ message }) : text, 500, channel);
    return failed(error, job.shouldRetryStatus(500), { status: 200, message: error.message });
  }
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
