import { redactChannelKeys, redactChannelText } from '@gw/channel';
import type { BuiltRequest, UpstreamRequestInit, UpstreamResponse } from '@gw/upstream';
import type { AdaptorRequest } from '../providers/adaptor-request.js';
import { type AdaptorCall, AdaptorRequestError, type EmbeddingAdaptor, type Json, type ProviderCodec } from '../providers/types.js';
import { sendAnswer } from '../stream/json-responder.js';
import type { Usage } from '../stream/usage.js';
import { exchangeJson, failedAttempt } from './json-exchange.js';
import type { CallOverride } from './param-override/index.js';
import { badRequest, RelayError } from './relay-error.js';
import { sendFailure } from './upstream-error.js';
import type { Attempt, ForwardInput } from './upstream-call.js';

/**
 * OpenAI's base64 vectors (little-endian float32, what the official SDKs ask for unless told otherwise) from a
 * provider's float lists, in place.
 */
export function encodeVectors(answer: Json): void {
  for (const item of Array.isArray(answer.data) ? answer.data : []) {
    const vector = item?.embedding;
    if (!Array.isArray(vector)) continue;
    const floats = Float32Array.from(vector as number[]);
    item.embedding = Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
  }
}

export interface NativeEmbeddingCall {
  adaptor: EmbeddingAdaptor;
  /** The channel's param override on the native body. */
  override: CallOverride;
  /** The built request for a native body, authorised as the channel's adaptor authorises its calls (a Google token). */
  prepare(body: Json, call: AdaptorCall): Promise<AdaptorRequest>;
  codec: ProviderCodec;
  call: AdaptorCall;
  input: ForwardInput;
  send(built: BuiltRequest, init: UpstreamRequestInit, call: AdaptorCall): Promise<UpstreamResponse>;
  shouldRetryStatus(status: number): boolean;
}

/**
 * `/v1/embeddings` to a provider with its own embeddings API (Baidu, DashScope, Ollama, Vertex AI): the OpenAI
 * request in the provider's shape, its answer back in OpenAI's, billed on the provider's usage (else the prompt
 * count). Input the provider cannot take is the client's 400, tried on no other channel.
 */
export async function nativeEmbeddingAttempt(job: NativeEmbeddingCall): Promise<Attempt> {
  const { call, input } = job;
  const channel = call.channel;
  const upstreamModel = call.model;
  let native: Json;
  try {
    native = job.adaptor.requestFromOpenAi(input.request.body, upstreamModel);
  } catch (error) {
    if (error instanceof AdaptorRequestError) return failedAttempt(call, badRequest(error.message), false);
    throw error;
  }
  const overridden = job.override(native, call);
  if ('failure' in overridden) return failedAttempt(call, overridden.failure.error, overridden.failure.retryable);
  const { body, call: sent } = overridden;
  let prepared: AdaptorRequest;
  try {
    prepared = await job.prepare(body, sent);
  } catch (error) {
    const failure = sendFailure(error, input.signal.aborted, channel);
    return failedAttempt(call, failure.error, failure.retryable, failure.channelFault);
  }
  const exchange = await exchangeJson({
    call,
    input,
    codec: job.codec,
    send: () => job.send(prepared.built, { body, rawBody: prepared.rawBody, stream: false, signal: input.signal }, sent),
    shouldRetryStatus: job.shouldRetryStatus,
  });
  if ('failure' in exchange) return exchange.failure;
  const { parsed, headersAt } = exchange.answer;
  let mapped: ReturnType<EmbeddingAdaptor['responseToOpenAi']>;
  try {
    mapped = job.adaptor.responseToOpenAi(parsed, input.request.model);
  } catch (error) {
    const message = redactChannelKeys(String((error as Error)?.message ?? error), channel);
    return failedAttempt(call, new RelayError(message, 502, 'bad_response_body', 'upstream_error'), true, { status: 200, message });
  }
  const { response: answer, usage: reported } = mapped;
  const usage: Usage = reported ?? { promptTokens: input.promptTokens, completionTokens: 0, cachedTokens: 0 };
  if (input.request.body.encoding_format === 'base64') encodeVectors(answer);
  const out = JSON.stringify({
    ...answer,
    model: input.request.model,
    usage: { prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens + usage.completionTokens },
  });
  sendAnswer(input.res, redactChannelText(out, channel));
  return { ok: true, upstreamModel, usage, localCount: !reported, frtMs: Math.round(headersAt - input.startedAt), retryable: false };
}
