import type { UpstreamResponse } from '@gw/upstream';
import { parseJsonObject } from '../providers/sse-events.js';
import type { AdaptorCall, ProviderCodec } from '../providers/types.js';
import { heldBack } from './answer-hold.js';
import { RelayError } from './relay-error.js';
import { statusFailure, transportError, transportFailure, upstreamStatusError } from './upstream-error.js';
import type { Attempt, ForwardInput } from './upstream-call.js';

/** One non-streamed upstream call whose answer must be a JSON object (the embeddings passed to a provider's own API). */
export interface JsonExchange {
  call: AdaptorCall;
  input: ForwardInput;
  codec: ProviderCodec;
  /** Builds the body and the request and sends them (a throw is a transport failure). */
  send(): Promise<UpstreamResponse>;
  shouldRetryStatus(status: number): boolean;
  /** An answer that is the provider's error (default: the codec's isErrorBody). */
  isError?(parsed: Record<string, unknown>): boolean;
}

/** The provider's answer, read and held until the reserve committed; `headersAt` times the first response. */
export interface JsonAnswer {
  parsed: Record<string, unknown>;
  text: string;
  headersAt: number;
}

/** A failed attempt of the call's channel and model. */
export function failedAttempt(call: AdaptorCall, error: RelayError, retryable: boolean, channelFault?: Attempt['channelFault']): Attempt {
  return { ok: false, upstreamModel: call.model, localCount: false, frtMs: 0, error, retryable, channelFault };
}

/**
 * Sends, then turns every way the call can fail into its attempt: the transport, a non-200 status, the held
 * answer (a reserve that did not commit), an unreadable body, a body that is no JSON object, and a 200 whose
 * body is the provider's error (retried as a 500 would be). Otherwise the answer, for the caller to shape.
 */
export async function exchangeJson(job: JsonExchange): Promise<{ answer: JsonAnswer } | { failure: Attempt }> {
  const { call, input, codec } = job;
  const channel = call.channel;
  const fail = (error: RelayError, retryable: boolean, channelFault?: Attempt['channelFault']) => ({
    failure: failedAttempt(call, error, retryable, channelFault),
  });
  let response: UpstreamResponse;
  try {
    response = await job.send();
  } catch (error) {
    const failure = transportFailure(error, input.signal.aborted, channel);
    return fail(failure.error, failure.retryable, failure.channelFault);
  }
  const headersAt = performance.now();
  if (response.status !== 200) {
    const failure = await statusFailure(response, channel, job.shouldRetryStatus);
    return fail(failure.error, failure.retryable, failure.channelFault);
  }
  const held = await heldBack(input, call.model);
  if (held) return { failure: held };
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    const relayError = transportError(error, channel);
    return fail(relayError, !input.signal.aborted, input.signal.aborted ? undefined : { message: relayError.message });
  }
  const parsed = parseJsonObject(text);
  if (!parsed)
    return fail(new RelayError('upstream answer is not a JSON object', 502, 'bad_response_body', 'upstream_error'), true, {
      status: 200,
      message: 'bad response body',
    });
  if (job.isError ? job.isError(parsed) : codec.isErrorBody(parsed)) {
    const message = codec.errorMessage?.(parsed);
    const error = upstreamStatusError(message ? JSON.stringify({ message }) : text, 500, channel);
    return fail(error, job.shouldRetryStatus(500), { status: 200, message: error.message });
  }
  return { answer: { parsed, text, headersAt } };
}
