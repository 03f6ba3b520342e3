import { Inject, Injectable } from '@nestjs/common';
import type { RelayChannel } from '@gw/channel';
import { APP_CONFIG, type AppConfig } from '@gw/core';
import { OptionService, type OptionKey } from '@gw/option';
import { UpstreamClient, UpstreamError, type UpstreamResponse } from '@gw/upstream';
import { codecOf } from '../providers/registry.js';
import { parseJsonObject } from '../providers/sse-events.js';
import type { AdaptorCall, ChannelAdaptor, ProviderSettings } from '../providers/types.js';
import { FormatStream, hubAnswerText } from '../stream/format-stream.js';
import { relayStream, type StreamLimits, streamLimitsOf } from '../stream/stream-responder.js';
import type { Usage } from '../stream/usage.js';
import { RelayError } from './relay-error.js';
import { RetryPolicy } from './retry-policy.js';
import {
  redactChannelKeys,
  redactingStream,
  statusFailure,
  transportError,
  transportFailure,
  upstreamStatusError,
} from './upstream-error.js';
import type { Attempt, ForwardInput } from './upstream-call.js';

/**
 * One attempt where the client's format and the channel's are not both OpenAI: the body passes through
 * untouched when the two formats are the same (only the model and the channel's overrides change), and is
 * converted through the hub (OpenAI chat) otherwise; the answer, its stream and its usage come back the same
 * way. The OpenAI-to-OpenAI path stays in UpstreamCall, tuned for speed.
 */
@Injectable()
export class FormatCall {
  private readonly settings: ProviderSettings;
  private readonly streamLimits: StreamLimits;

  constructor(
    private readonly upstream: UpstreamClient,
    private readonly retry: RetryPolicy,
    options: OptionService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.streamLimits = streamLimitsOf(config);
    this.settings = { get: <T>(key: string) => options.get(key as OptionKey) as T };
  }

  async attempt(channel: RelayChannel, adaptor: ChannelAdaptor, input: ForwardInput, upstreamModel: string): Promise<Attempt> {
    const { request } = input;
    // Responses reaches OpenAI channels by pass-through (UpstreamCall); other channels get it through the hub.
    const inboundFormat = request.kind === 'responses' ? 'responses' : request.format;
    const inbound = codecOf(inboundFormat);
    const native = codecOf(adaptor.format);
    const passThrough = inboundFormat === adaptor.format;
    const conversion = passThrough ? undefined : [inboundFormat, adaptor.format];
    const failed = (error: RelayError, retryable: boolean, channelFault?: Attempt['channelFault']): Attempt => ({
      ok: false,
      upstreamModel,
      localCount: false,
      frtMs: 0,
      error,
      retryable,
      channelFault,
      conversion,
    });
    if (request.kind !== 'chat' && request.kind !== 'messages' && request.kind !== 'gemini' && request.kind !== 'responses') {
      const message = `channel type ${channel.type} does not serve ${request.path}`;
      return failed(new RelayError(message, 400, 'convert_request_failed', 'invalid_request_error'), true);
    }

    const call: AdaptorCall = {
      channel,
      model: upstreamModel,
      stream: request.stream,
      settings: this.settings,
      clientHeaders: input.clientHeaders,
    };
    const hubRequest = request.kind === 'responses' ? inbound.requestToHub(request.body, request.model, request.stream) : request.hub;
    let body = passThrough
      ? { ...request.body }
      : native.requestFromHub({ ...hubRequest, model: upstreamModel }, upstreamModel, this.settings);
    if (passThrough && 'model' in body) body.model = upstreamModel;
    const override = channel.paramOverride;
    if (override && !Array.isArray(override.operations)) Object.assign(body, override);
    if (adaptor.finishBody) body = adaptor.finishBody(body, call, !passThrough);

    let response: UpstreamResponse;
    try {
      response = await this.upstream.sendBuilt(adaptor.buildChatRequest(call), { body, stream: request.stream, signal: input.signal });
    } catch (error) {
      const failure = transportFailure(error, input.signal.aborted, channel);
      return failed(failure.error, failure.retryable, failure.channelFault);
    }
    const headersAt = performance.now();

    if (response.status !== 200) {
      const failure = await statusFailure(response, channel, (status) => this.retry.shouldRetryStatus(status));
      return failed(failure.error, failure.retryable, failure.channelFault);
    }

    if (request.stream && String(response.headers['content-type'] ?? '').includes('text/event-stream')) {
      const encoder = passThrough
        ? undefined
        : inbound.streamEncoder({ model: request.model, promptTokens: input.promptTokens, includeUsage: request.includeUsage });
      const stream = new FormatStream(native.streamDecoder(request.model), encoder, input.promptTokens, input.countText);
      const outcome = await relayStream(response.body, input.res, redactingStream(stream, channel), this.streamLimits);
      const frtMs = Math.round((outcome.firstChunkAt ?? headersAt) - input.startedAt);
      if (outcome.error !== undefined && !outcome.delivered) {
        const aborted = input.signal.aborted;
        const relayError =
          outcome.error instanceof UpstreamError
            ? transportError(outcome.error, channel)
            : new RelayError(
                redactChannelKeys(String((outcome.error as Error)?.message ?? outcome.error), channel),
                502,
                'bad_response_body',
                'upstream_error',
              );
        return { ...failed(relayError, !aborted, aborted ? undefined : { message: relayError.message }), frtMs };
      }
      const { usage, local } = stream.finalUsage();
      const interrupted =
        outcome.error === undefined
          ? undefined
          : input.signal.aborted
            ? 'client aborted'
            : String((outcome.error as Error)?.message ?? outcome.error);
      return { ok: true, upstreamModel, usage, localCount: local, frtMs, retryable: false, interrupted, conversion };
    }

    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      const aborted = input.signal.aborted;
      const relayError = transportError(error, channel);
      return failed(relayError, !aborted, aborted ? undefined : { message: relayError.message });
    }
    const parsed = parseJsonObject(text);
    if (!parsed)
      return failed(new RelayError('upstream answer is not a JSON object', 502, 'bad_response_body', 'upstream_error'), true, {
        status: 200,
        message: 'bad response body',
      });
    if (native.isErrorBody(parsed)) {
      const error = upstreamStatusError(text, 500, channel);
      return failed(error, this.retry.shouldRetryStatus(500), { status: 200, message: error.message });
    }
    const { response: hub, usage: reported } = native.responseToHub(parsed, request.model);
    const usage: Usage = reported ?? {
      promptTokens: input.promptTokens,
      completionTokens: input.countText(hubAnswerText(hub)),
      cachedTokens: 0,
    };
    // Same format: the provider's answer as sent (no lossy round trip); otherwise the hub answer in the client's format.
    const out = passThrough && reported ? text : JSON.stringify(inbound.responseFromHub(hub, usage, request.model));
    input.res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(out) });
    input.res.end(out);
    return {
      ok: true,
      upstreamModel,
      usage,
      localCount: !reported,
      frtMs: Math.round(headersAt - input.startedAt),
      retryable: false,
      conversion,
    };
  }
}
