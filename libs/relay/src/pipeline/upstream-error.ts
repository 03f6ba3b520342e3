import { channelRedactor, type RelayChannel, redactChannelKeys } from '@gw/channel';
import { UpstreamError, type UpstreamResponse } from '@gw/upstream';
import { AdaptorAuthError } from '../providers/types.js';
import type { StreamRewriter } from '../stream/stream-responder.js';
import { RelayError } from './relay-error.js';

const MAX_MESSAGE_CHARS = 1000;

/** Upstream statuses that mean the channel's own credentials were refused, not the caller's. */
const CHANNEL_AUTH_STATUSES = new Set([401, 403]);

/**
 * An upstream non-200 as the client's OpenAI error: the provider's message (and type/code when it sent
 * OpenAI's shape), with the channel's status_code_mapping applied to the status the client sees. The
 * message never carries the channel's keys (providers and proxies echo the key they rejected). An
 * upstream 401/403 is the gateway's channel problem: a 500 `channel:invalid_key` (new-api's code), so
 * SDKs do not report the caller's own key as invalid; an explicit status_code_mapping still wins.
 */
export function upstreamStatusError(text: string, status: number, channel: RelayChannel): RelayError {
  let message = '';
  let type = 'upstream_error';
  let code: string | number | null = null;
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown; msg?: unknown };
    const error = body?.error;
    if (typeof error === 'string') message = error;
    else if (error && typeof error === 'object') {
      const e = error as { message?: unknown; type?: unknown; code?: unknown };
      if (typeof e.message === 'string') message = e.message;
      if (typeof e.type === 'string' && e.type) type = e.type;
      if (typeof e.code === 'string' || typeof e.code === 'number') code = e.code;
    } else if (typeof body?.message === 'string') message = body.message;
    // Coze (and other Chinese platforms) answer {code, msg}.
    else if (typeof body?.msg === 'string') message = body.msg;
  } catch {
    message = text.trim();
  }
  if (!message) message = `upstream answered status ${status}`;
  message = redactChannelKeys(message, channel);
  if (message.length > MAX_MESSAGE_CHARS) message = `${message.slice(0, MAX_MESSAGE_CHARS)}…`;
  if (CHANNEL_AUTH_STATUSES.has(status) && channel.statusCodeMapping?.[String(status)] === undefined) {
    return new RelayError(
      `the channel's upstream credentials were refused (upstream status ${status}): ${message}`,
      500,
      'channel:invalid_key',
    );
  }
  return new RelayError(message, mapStatus(channel.statusCodeMapping ?? {}, status), code, type);
}

/** status_code_mapping `{"500":"502"}`; 200 is never remapped and only real HTTP statuses are accepted. */
export function mapStatus(mapping: Record<string, string>, status: number): number {
  if (status === 200) return status;
  const target = mapping[String(status)];
  if (target === undefined) return status;
  const mapped = Number.parseInt(target, 10);
  return Number.isInteger(mapped) && mapped >= 100 && mapped <= 599 ? mapped : status;
}

/** A transport failure (no HTTP answer) as the client's error (a URL in it may carry a key: Gemini's `?key=`). */
export function transportError(error: unknown, channel?: RelayChannel): RelayError {
  const e = error instanceof UpstreamError ? error : undefined;
  const message = redactChannelKeys(e?.message ?? (error as Error)?.message ?? 'upstream request failed', channel);
  switch (e?.kind) {
    case 'timeout':
      return new RelayError(message, 504, 'upstream_timeout');
    case 'too_large':
      return new RelayError(message, 502, 'upstream_response_too_large');
    case 'unsupported':
      return new RelayError(message, 500, 'channel:unsupported_type');
    default:
      return new RelayError(message, 502, 'do_request_failed');
  }
}

/**
 * A stream rewriter whose every output byte is scanned for the channel's keys, whole or in pieces, a key
 * split across two outputs included (an upstream can echo a key in ordinary content as well as in an error
 * event). A clean output passes as the same bytes (see KeyRedactor for the cost).
 */
export function redactingStream(rewriter: StreamRewriter, channel: RelayChannel): StreamRewriter {
  const redactor = channelRedactor(channel);
  if (!redactor) return rewriter;
  const stream = redactor.stream();
  return {
    push: (chunk) => stream.push(asBytes(rewriter.push(chunk))),
    end: () => stream.end(asBytes(rewriter.end())),
  };
}

function asBytes(output: string | Buffer): Buffer {
  return typeof output === 'string' ? Buffer.from(output, 'utf8') : output;
}

/** Why an attempt failed, as the attempt runners record it: the error, whether another channel may retry, the health fault. */
export interface AttemptFailure {
  error: RelayError;
  retryable: boolean;
  channelFault?: { status?: number; message: string; channelError?: boolean };
}

/**
 * The channel's key cannot be used as its provider needs it (an AdaptorAuthError: not AK|SK|Region, a broken
 * service account, a refused token): new-api's 500 `channel:invalid_key`, retried elsewhere, a channel fault.
 */
export function channelKeyFailure(reason: string, channel: RelayChannel): AttemptFailure {
  const message = redactChannelKeys(reason, channel);
  return { error: new RelayError(message, 500, 'channel:invalid_key'), retryable: true, channelFault: { message, channelError: true } };
}

/** A call that got no answer (connect, TLS, timeout, client abort): retried and counted against the channel unless the client left. */
export function transportFailure(error: unknown, clientGone: boolean, channel: RelayChannel): AttemptFailure {
  const aborted = clientGone || (error instanceof UpstreamError && error.kind === 'aborted');
  const relayError = transportError(error, channel);
  return {
    error: relayError,
    retryable: !aborted,
    channelFault: aborted
      ? undefined
      : { message: relayError.message, channelError: error instanceof UpstreamError && error.kind === 'unsupported' },
  };
}

/** A call that could not be made or answered: the channel's unusable key (an AdaptorAuthError), else the transport. */
export function sendFailure(error: unknown, clientGone: boolean, channel: RelayChannel): AttemptFailure {
  return error instanceof AdaptorAuthError ? channelKeyFailure(error.message, channel) : transportFailure(error, clientGone, channel);
}

/** A non-200 answer: its body becomes the (redacted, mapped) error; retried as the retry policy says for its status. */
export async function statusFailure(
  response: UpstreamResponse,
  channel: RelayChannel,
  shouldRetry: (status: number) => boolean,
): Promise<AttemptFailure> {
  const text = await response.text().catch(() => '');
  const error = upstreamStatusError(text, response.status, channel);
  return { error, retryable: shouldRetry(response.status), channelFault: { status: response.status, message: error.message } };
}

/** The status new-api answers a prompt the provider refused in a 200 answer with (types.ErrorCodePromptBlocked). */
const PROMPT_BLOCKED_STATUS = 400;

/**
 * A prompt the provider refused in a 200 answer (Gemini's promptFeedback.blockReason, no candidates): new-api's
 * 400 `prompt_blocked` (type and code alike), status_code_mapping applied; a failed call like any upstream error
 * (retried as the retry policy says for 400, refunded, logged).
 */
export function promptBlockedFailure(message: string, channel: RelayChannel, shouldRetry: (status: number) => boolean): AttemptFailure {
  let text = redactChannelKeys(message, channel);
  if (text.length > MAX_MESSAGE_CHARS) text = `${text.slice(0, MAX_MESSAGE_CHARS)}…`;
  const status = mapStatus(channel.statusCodeMapping ?? {}, PROMPT_BLOCKED_STATUS);
  return {
    error: new RelayError(text, status, 'prompt_blocked', 'prompt_blocked'),
    retryable: shouldRetry(PROMPT_BLOCKED_STATUS),
    channelFault: { status: PROMPT_BLOCKED_STATUS, message: text },
  };
}

/**
 * Why a stream that had already delivered stopped early (kept on the log row), or undefined when it ran to
 * its end: the client went away, or the upstream's read failed with this message.
 */
export function streamInterruption(error: unknown, clientAborted: boolean): string | undefined {
  if (error === undefined) return undefined;
  return clientAborted ? 'client aborted' : String((error as Error)?.message ?? error);
}
