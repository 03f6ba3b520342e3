import { redactChannelText } from '@gw/channel';
import type { BuiltRequest, UpstreamRequestInit, UpstreamResponse } from '@gw/upstream';
import { parseJsonObject } from '../providers/sse-events.js';
import type { AdaptorCall, ProviderCodec } from '../providers/types.js';
import { sendAnswer } from '../stream/json-responder.js';
import { heldBack } from './answer-hold.js';
import { RelayError } from './relay-error.js';
import { statusFailure, transportError, transportFailure, upstreamStatusError } from './upstream-error.js';
import type { Attempt, ForwardInput } from './upstream-call.js';

export interface GeminiEmbeddingCall {
  built: BuiltRequest;
  codec: ProviderCodec;
  call: AdaptorCall;
  input: ForwardInput;
  send(built: BuiltRequest, init: UpstreamRequestInit): Promise<UpstreamResponse>;
  shouldRetryStatus(status: number): boolean;
}

/**
 * The body as the client sent it with `model` set to `models/{upstream model}` (in every item of a batch), as
 * new-api does; the channel's parameter override (its object form) on top.
 */
export function geminiEmbeddingBody(body: Record<string, unknown>, upstreamModel: string, batch: boolean, override?: unknown) {
  const model = `models/${upstreamModel}`;
  const out: Record<string, unknown> = batch
    ? { ...body, requests: (body.requests as Record<string, unknown>[]).map((item) => ({ ...item, model })) }
    : { ...body, model };
  if (override && typeof override === 'object' && !Array.isArray((override as { operations?: unknown }).operations))
    Object.assign(out, override);
  return out;
}

/**
 * Gemini `:embedContent` / `:batchEmbedContents` passed through to a Gemini channel: the answer goes back as
 * the provider sent it. Billed as new-api bills it: on the local count of the request's texts (the provider
 * reports no tokens for embeddings), no completion.
 */
export async function geminiEmbeddingAttempt(job: GeminiEmbeddingCall): Promise<Attempt> {
  const { call, input } = job;
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
    const body = geminiEmbeddingBody(input.request.body, upstreamModel, input.request.batch === true, channel.paramOverride);
    response = await job.send(job.built, { body, stream: false, signal: input.signal });
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
  if (parsed.error !== undefined && parsed.embedding === undefined && parsed.embeddings === undefined) {
    const message = job.codec.errorMessage?.(parsed);
    const error = upstreamStatusError(message ? JSON.stringify({ message }) : text, 500, channel);
    return failed(error, job.shouldRetryStatus(500), { status: 200, message: error.message });
  }
  sendAnswer(input.res, redactChannelText(text, channel));
  return {
    ok: true,
    upstreamModel,
    usage: { promptTokens: input.promptTokens, completionTokens: 0, cachedTokens: 0 },
    localCount: true,
    frtMs: Math.round(headersAt - input.startedAt),
    retryable: false,
  };
}
