import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { ChannelHealthService, ChannelKeyService, type RelayChannel, redactChannelText } from '@gw/channel';
import { APP_CONFIG, type AppConfig } from '@gw/core';
import { UpstreamClient, type CancelSignal, type UpstreamResponse, type UpstreamTarget } from '@gw/upstream';
import { ResponsesStreamWatcher } from '../providers/openai/responses-watcher.js';
import { encodeMultipart } from '../http/multipart-body.js';
import { relayAudioText } from '../stream/audio-text-responder.js';
import { relayBinary } from '../stream/binary-responder.js';
import { FormatStream } from '../stream/format-stream.js';
import { relayJson } from '../stream/json-responder.js';
import { SseTracker } from '../stream/sse-tracker.js';
import { relayStream, type StreamLimits, streamLimitsOf } from '../stream/stream-responder.js';
import type { FailedAttempt } from '../log/error-log.js';
import type { Usage } from '../stream/usage.js';
import { adaptorOf } from '../providers/registry.js';
import { ChannelSelection, type ChannelRoute } from './channel-selection.js';
import { FormatCall } from './format-call.js';
import { RelayError } from './relay-error.js';
import type { RelayRequest } from './relay-request.js';
import { heldBack } from './answer-hold.js';
import { RetryPolicy } from './retry-policy.js';
import {
  redactingStream,
  statusFailure,
  streamInterruption,
  transportError,
  transportFailure,
  upstreamStatusError,
} from './upstream-error.js';
import { withOverrideTemplate } from '../affinity/override-template.js';
import { withResponsesToolCalls } from '../providers/openai/responses-tools.js';
import { type AttemptPlace, overrideFacts, overrideForAttempt } from './param-override/index.js';
import { buildUpstreamBody, ModelMappingCycleError, resolveModelMapping } from './upstream-body.js';

export interface ForwardInput {
  request: RelayRequest;
  group: string;
  first: RelayChannel;
  /** How retries move between channels and, for `auto`, groups (its `group` follows); absent, they stay in `group`. */
  route?: ChannelRoute;
  /** A pinned channel is used alone: no retry. */
  pinned: boolean;
  promptTokens: number;
  countText: (text: string) => number;
  signal: CancelSignal;
  res: ServerResponse;
  startedAt: number;
  /** Body fields that must not reach the provider (the playground's `group`). */
  dropFields?: readonly string[];
  /** The client's headers (adaptors pass a few on, such as anthropic-beta). */
  clientHeaders?: IncomingHttpHeaders;
  /**
   * Set when the reserve runs beside the upstream call: awaited once the provider has answered 200, before
   * any byte is written to the client; false when the reserve did not commit (the call was cancelled).
   */
  holdAnswer?: () => Promise<boolean>;
  /**
   * Told of every failed attempt the error log records (set only when ERROR_LOG_ENABLED is on): as new-api,
   * each channel that failed, whether or not a retry then succeeded; not a channel that could not be used
   * (no key left), a reserve that did not commit, nor an attempt cut short because the client left.
   */
  onFailure?: (failure: FailedAttempt) => void;
  /** An affinity rule's param_override_template, merged under each channel's own param override. */
  overrideTemplate?: Record<string, unknown>;
  /** More context for the param override's conditions and sync_fields (channel_affinity). */
  overrideContext?: Record<string, unknown>;
}

export interface ForwardResult {
  ok: boolean;
  /** The channel of the last attempt. */
  channel: RelayChannel;
  /** Every channel tried, in order (other.admin_info.use_channel). */
  usedChannels: number[];
  upstreamModel: string;
  usage?: Usage;
  localCount: boolean;
  /** Milliseconds from the request's start to the first upstream byte. */
  frtMs: number;
  /** The client's error when nothing was delivered. */
  error?: RelayError;
  /** The stream stopped early after delivery (client abort, upstream cut): billed for what was sent. */
  interrupted?: string;
  /** The formats converted between (client's, provider's) when they differ: other.request_conversion. */
  conversion?: string[];
}

export interface Attempt extends Omit<ForwardResult, 'channel' | 'usedChannels'> {
  retryable: boolean;
  /** Which key of a multi-key channel was used (its failures disable that key only). */
  keyIndex?: number;
  /** Counted against the channel's health (not for client aborts). */
  channelFault?: { status?: number; message: string; channelError?: boolean };
  /** Not an upstream call's failure (channel selection, the reserve): no error log row (new-api logs none). */
  unlogged?: boolean;
}

/** A multi-key channel whose keys are all disabled: a channel fault, so another channel is tried. */
function noKeyLeft(model: string): Attempt {
  const message = 'the channel has no enabled key left';
  return {
    ok: false,
    upstreamModel: model,
    localCount: false,
    frtMs: 0,
    retryable: true,
    error: new RelayError(message, 503, 'channel:no_available_key'),
    channelFault: { message, channelError: true },
    unlogged: true,
  };
}

/**
 * Sends the request to the first channel and, on a retryable failure before any byte reached the
 * client, to others: each retry on the next priority tier, never a channel tried before (RetryTimes).
 * Every failure is reported to channel health.
 */
@Injectable()
export class UpstreamCall {
  private readonly streamLimits: StreamLimits;

  constructor(
    private readonly upstream: UpstreamClient,
    private readonly selection: ChannelSelection,
    private readonly retry: RetryPolicy,
    private readonly health: ChannelHealthService,
    private readonly keys: ChannelKeyService,
    private readonly formats: FormatCall,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.streamLimits = streamLimitsOf(config);
  }

  async forward(input: ForwardInput): Promise<ForwardResult> {
    const route =
      input.route ?? this.selection.fixedRoute(input.group, input.request.model, input.first, input.pinned ? 0 : this.retry.retryTimes());
    const tried = new Set<number>();
    const usedChannels: number[] = [];
    let channel = input.first;
    let lastError: RelayError | undefined;
    for (;;) {
      tried.add(channel.id);
      usedChannels.push(channel.id);
      const choice = this.keys.choose(channel);
      const place = { retryIndex: usedChannels.length - 1, lastError };
      const attempt = choice
        ? { ...(await this.attempt(channel, choice.upstream, input, place)), keyIndex: choice.keyIndex }
        : noKeyLeft(input.request.model);
      lastError = attempt.error;
      if (attempt.channelFault) this.health.reportRelayFailure(channel.id, attempt.channelFault, attempt.keyIndex);
      else if (attempt.ok) this.health.reportRelaySuccess(channel.id, attempt.keyIndex);
      if (!attempt.ok && input.onFailure && attempt.error && !attempt.unlogged && !input.signal.aborted) {
        input.onFailure({ channel, error: attempt.error, usedChannels: [...usedChannels], keyIndex: attempt.keyIndex });
      }
      const result: ForwardResult = { ...attempt, channel, usedChannels };
      if (attempt.ok || !attempt.retryable || input.signal.aborted) return result;
      const next = route.next(tried);
      if (!next) return result;
      channel = next;
    }
  }

  private async attempt(selected: RelayChannel, target: UpstreamTarget, input: ForwardInput, place: AttemptPlace): Promise<Attempt> {
    const { request } = input;
    const channel = withOverrideTemplate(selected, input.overrideTemplate);
    let upstreamModel = request.model;
    const failed = (error: RelayError, retryable: boolean, channelFault?: Attempt['channelFault']): Attempt => ({
      ok: false,
      upstreamModel,
      localCount: false,
      frtMs: 0,
      error,
      retryable,
      channelFault,
    });
    try {
      upstreamModel = resolveModelMapping(channel.modelMapping, request.model);
    } catch (error) {
      if (!(error instanceof ModelMappingCycleError)) throw error;
      // A channel misconfiguration (new-api's channel: errors): another channel may serve the request.
      return failed(new RelayError(error.message, 500, 'channel:model_mapping_error'), true, {
        message: error.message,
        channelError: true,
      });
    }
    const adaptor = adaptorOf(channel.type);
    if (!adaptor) {
      const message = `channel type ${channel.type} is not supported by the relay yet`;
      return failed(new RelayError(message, 500, 'channel:unsupported_type'), true, { message, channelError: true });
    }
    if (request.format !== 'openai' || adaptor.format !== 'openai') {
      // Adaptors read the key from channel.upstream: hand them the key this attempt chose (multi-key channels).
      const keyed = target === channel.upstream ? channel : { ...channel, upstream: target };
      return this.formats.attempt(keyed, adaptor, input, upstreamModel, place);
    }
    let body = buildUpstreamBody(request, channel, upstreamModel, this.config.relay.forceStreamOption, input.dropFields);
    let sendTo = target;
    if (channel.paramOverride && !request.multipart) {
      const applied = overrideForAttempt(
        body,
        channel.paramOverride,
        target.headerOverride ?? null,
        overrideFacts(input, upstreamModel, place),
        (status) => this.retry.shouldRetryStatus(status),
      );
      if ('failure' in applied) return failed(applied.failure.error, applied.failure.retryable);
      body = applied.body;
      if (applied.headerOverride) sendTo = { ...target, headerOverride: applied.headerOverride };
    }

    let response: UpstreamResponse;
    try {
      const rawBody = request.multipart ? await encodeMultipart(request.multipart, upstreamModel) : undefined;
      response = await this.upstream.send(sendTo, request.endpoint, {
        body,
        rawBody,
        model: upstreamModel,
        stream: request.stream,
        signal: input.signal,
      });
    } catch (error) {
      const failure = transportFailure(error, input.signal.aborted, channel);
      return failed(failure.error, failure.retryable, failure.channelFault);
    }
    const headersAt = performance.now();

    if (response.status !== 200) {
      const failure = await statusFailure(response, channel, (status) => this.retry.shouldRetryStatus(status));
      return failed(failure.error, failure.retryable, failure.channelFault);
    }
    const held = await heldBack(input, upstreamModel);
    if (held) return held;

    if (request.kind === 'audio_speech') {
      // Speech is billed by its input characters (the prompt count), whatever audio comes back.
      const sent = await relayBinary(response, input.res, channel);
      const interrupted = sent.error === undefined ? undefined : String((sent.error as Error)?.message ?? sent.error);
      const usage = { promptTokens: input.promptTokens, completionTokens: 0, cachedTokens: 0 };
      return {
        ok: true,
        upstreamModel,
        usage,
        localCount: false,
        frtMs: Math.round(headersAt - input.startedAt),
        retryable: false,
        interrupted,
      };
    }

    if (request.stream && String(response.headers['content-type'] ?? '').includes('text/event-stream')) {
      const tracker =
        request.kind === 'responses'
          ? new FormatStream(new ResponsesStreamWatcher(), undefined, input.promptTokens, input.countText)
          : new SseTracker(request.includeUsage, input.countText, input.promptTokens, request.kind === 'chat');
      // Straight from the connection when the client offers it (no stream machinery per chunk).
      const body = response.chunks ?? response.body;
      const outcome = await relayStream(body, input.res, redactingStream(tracker, channel), this.streamLimits);
      const frtMs = Math.round((outcome.firstChunkAt ?? headersAt) - input.startedAt);
      if (outcome.error !== undefined && !outcome.delivered) {
        const aborted = input.signal.aborted;
        const relayError = transportError(outcome.error, channel);
        return { ...failed(relayError, !aborted, aborted ? undefined : { message: relayError.message }), frtMs };
      }
      const { usage, local } = tracker.finalUsage();
      const interrupted = streamInterruption(outcome.error, input.signal.aborted);
      return { ok: true, upstreamModel, usage, localCount: local, frtMs, retryable: false, interrupted };
    }

    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      const aborted = input.signal.aborted;
      const relayError = transportError(error, channel);
      return failed(relayError, !aborted, aborted ? undefined : { message: relayError.message });
    }
    // Every byte the client gets is free of the channel's keys (a proxy may echo them in an answer).
    text = redactChannelText(text, channel);
    const audio = request.kind === 'audio_transcriptions' || request.kind === 'audio_translations';
    const outcome = audio
      ? relayAudioText(text, input.res, String(response.headers['content-type'] ?? ''), input.countText)
      : relayJson(text, input.res, input.promptTokens, input.countText);
    if ('errorText' in outcome) {
      // An error object with status 200: a failed call, retried like a 500 and never billed.
      const error = upstreamStatusError(outcome.errorText, 500, channel);
      return failed(error, this.retry.shouldRetryStatus(500), { status: 200, message: error.message });
    }
    return {
      ok: true,
      upstreamModel,
      // Hosted tool calls (web search, file search) are billed per call on top of the tokens.
      usage: request.kind === 'responses' && !outcome.local ? withResponsesToolCalls(outcome.usage, text) : outcome.usage,
      localCount: outcome.local,
      frtMs: Math.round(headersAt - input.startedAt),
      retryable: false,
    };
  }
}
