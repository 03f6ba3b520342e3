import { redactChannelText } from '@gw/channel';
import type { BuiltRequest, UpstreamRequestInit, UpstreamResponse } from '@gw/upstream';
import type { AdaptorCall, ProviderCodec } from '../providers/types.js';
import { sendAnswer } from '../stream/json-responder.js';
import { exchangeJson, failedAttempt } from './json-exchange.js';
import type { CallOverride } from './param-override/index.js';
import type { Attempt, ForwardInput } from './upstream-call.js';

export interface GeminiEmbeddingCall {
  build(call: AdaptorCall): BuiltRequest;
  /** The channel's param override on the body. */
  override: CallOverride;
  codec: ProviderCodec;
  call: AdaptorCall;
  input: ForwardInput;
  send(built: BuiltRequest, init: UpstreamRequestInit, call: AdaptorCall): Promise<UpstreamResponse>;
  shouldRetryStatus(status: number): boolean;
}

/** The body as the client sent it with `model` set to `models/{upstream model}` (in every item of a batch), as new-api does. */
export function geminiEmbeddingBody(body: Record<string, unknown>, upstreamModel: string, batch: boolean): Record<string, unknown> {
  const model = `models/${upstreamModel}`;
  return batch
    ? { ...body, requests: (body.requests as Record<string, unknown>[]).map((item) => ({ ...item, model })) }
    : { ...body, model };
}

/**
 * Gemini `:embedContent` / `:batchEmbedContents` passed through to a Gemini channel: the answer goes back as
 * the provider sent it. Billed as new-api bills it: on the local count of the request's texts (the provider
 * reports no tokens for embeddings), no completion.
 */
export async function geminiEmbeddingAttempt(job: GeminiEmbeddingCall): Promise<Attempt> {
  const { call, input } = job;
  const overridden = job.override(geminiEmbeddingBody(input.request.body, call.model, input.request.batch === true), call);
  if ('failure' in overridden) return failedAttempt(call, overridden.failure.error, overridden.failure.retryable);
  const { body, call: sent } = overridden;
  const exchange = await exchangeJson({
    call,
    input,
    codec: job.codec,
    send: () => job.send(job.build(sent), { body, stream: false, signal: input.signal }, sent),
    shouldRetryStatus: job.shouldRetryStatus,
    isError: (parsed) => parsed.error !== undefined && parsed.embedding === undefined && parsed.embeddings === undefined,
  });
  if ('failure' in exchange) return exchange.failure;
  sendAnswer(input.res, redactChannelText(exchange.answer.text, call.channel));
  return {
    ok: true,
    upstreamModel: call.model,
    usage: { promptTokens: input.promptTokens, completionTokens: 0, cachedTokens: 0 },
    localCount: true,
    frtMs: Math.round(exchange.answer.headersAt - input.startedAt),
    retryable: false,
  };
}
