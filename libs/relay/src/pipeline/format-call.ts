import { type RelayChannel, redactChannelKeys, redactChannelText } from '@gw/channel';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@gw/core';
import { OptionService, type OptionKey } from '@gw/option';
import { UpstreamClient, UpstreamError, type UpstreamResponse } from '@gw/upstream';
import { adaptorRequest } from '../providers/adaptor-request.js';
import { codecOf, providerCodecOf } from '../providers/registry.js';
import { parseJsonObject, SseEventReader } from '../providers/sse-events.js';
import { aggregateStream } from '../providers/stream-aggregate.js';
import {
  AdaptorRequestError,
  type AdaptorCall,
  type ChannelAdaptor,
  type FormatCodec,
  type ProviderCodec,
  type ProviderEndpoint,
  type ProviderSettings,
} from '../providers/types.js';
import { geminiEmbeddingAttempt } from './gemini-embeddings.js';
import { nativeEmbeddingAttempt } from './native-embeddings.js';
import { FormatStream, hubAnswerText } from '../stream/format-stream.js';
import { sendAnswer } from '../stream/json-responder.js';
import { relayStream, type StreamLimits, streamLimitsOf } from '../stream/stream-responder.js';
import { toOpenAiUsage, type Usage } from '../stream/usage.js';
import { badRequest, RelayError } from './relay-error.js';
import { RetryPolicy } from './retry-policy.js';
import {
  promptBlockedFailure,
  redactingStream,
  sendFailure,
  statusFailure,
  streamInterruption,
  transportError,
  upstreamStatusError,
} from './upstream-error.js';
import { heldBack } from './answer-hold.js';
import { relaysVerbatim } from './verbatim-stream.js';
import { type AttemptPlace, type CallOverride, overrideFacts, overrideForAttempt } from './param-override/index.js';
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
    this.settings = { get: <T>(key: string) => options.get(key as OptionKey) as T, difyDebug: config.relay.difyDebug };
  }

  async attempt(
    channel: RelayChannel,
    typeAdaptor: ChannelAdaptor,
    input: ForwardInput,
    upstreamModel: string,
    place: AttemptPlace,
  ): Promise<Attempt> {
    const { request } = input;
    const adaptor = typeAdaptor.forModel?.(upstreamModel, channel) ?? typeAdaptor;
    // Responses reaches OpenAI channels by pass-through (UpstreamCall); other channels get it through the hub.
    const inboundFormat = request.kind === 'responses' ? 'responses' : request.format;
    const inbound = codecOf(inboundFormat);
    const native = providerCodecOf(adaptor);
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
    if (request.kind === 'gemini_embeddings') {
      // new-api passes these to Gemini channels only (its handler sends the Gemini body unconverted).
      if (!adaptor.geminiEmbeddings) {
        const message = `channel type ${channel.type} does not serve ${request.path}`;
        return failed(new RelayError(message, 400, 'convert_request_failed', 'invalid_request_error'), true);
      }
      const call: AdaptorCall = { channel, model: upstreamModel, stream: false, settings: this.settings };
      const { geminiEmbeddings, send } = adaptor;
      return geminiEmbeddingAttempt({
        build: (sent) => geminiEmbeddings(sent, request.batch === true),
        override: (body, sent) => this.override(sent, body, input, place),
        codec: native,
        call,
        input,
        send: (built, init, sent) => (send ? send(built, init, { call: sent, http: this.upstream }) : this.upstream.sendBuilt(built, init)),
        shouldRetryStatus: (status) => this.retry.shouldRetryStatus(status),
      });
    }
    const endpoint = adaptor.endpoints?.[request.kind];
    if (endpoint) return this.providerEndpoint(channel, adaptor, endpoint, input, upstreamModel, place, failed);
    if (adaptor.servesChat === false) {
      const message = `channel type ${channel.type} does not serve ${request.path}`;
      return failed(new RelayError(message, 400, 'convert_request_failed', 'invalid_request_error'), true);
    }

    let call: AdaptorCall = {
      channel,
      model: upstreamModel,
      // A stream-only provider (Coze) streams even for a single answer: it is read whole below.
      stream: request.stream || adaptor.streamOnly === true,
      settings: this.settings,
      clientHeaders: input.clientHeaders,
    };
    const embeddings = adaptor.embeddings;
    if (request.kind === 'embeddings' && embeddings) {
      const send = adaptor.send;
      return nativeEmbeddingAttempt({
        adaptor: embeddings,
        override: (body, sent) => this.override(sent, body, input, place),
        prepare: (body, sent) => adaptorRequest(adaptor, sent, body, embeddings.buildRequest(sent)),
        codec: native,
        call,
        input,
        send: (built, init, sent) => (send ? send(built, init, { call: sent, http: this.upstream }) : this.upstream.sendBuilt(built, init)),
        shouldRetryStatus: (status) => this.retry.shouldRetryStatus(status),
      });
    }
    if (request.kind !== 'chat' && request.kind !== 'messages' && request.kind !== 'gemini' && request.kind !== 'responses') {
      const message = `channel type ${channel.type} does not serve ${request.path}`;
      return failed(new RelayError(message, 400, 'convert_request_failed', 'invalid_request_error'), true);
    }

    const hubRequest = request.kind === 'responses' ? inbound.requestToHub(request.body, request.model, request.stream) : request.hub;
    let body: Record<string, unknown>;
    try {
      body = passThrough
        ? { ...request.body }
        : native.requestFromHub({ ...hubRequest, model: upstreamModel }, upstreamModel, this.settings);
    } catch (error) {
      // A request the provider's format cannot carry as sent (a wrong extra_body.google field): the client's 400.
      if (error instanceof AdaptorRequestError) return failed(badRequest(error.message), false);
      throw error;
    }
    if (passThrough && 'model' in body) body.model = upstreamModel;
    const overridden = this.override(call, body, input, place);
    if ('failure' in overridden) return failed(overridden.failure.error, overridden.failure.retryable);
    ({ call, body } = overridden);
    if (adaptor.finishBody) body = adaptor.finishBody(body, call, !passThrough);

    let response: UpstreamResponse;
    try {
      const { built, rawBody } = await adaptorRequest(adaptor, call, body);
      const init = { body, rawBody, stream: call.stream, signal: input.signal };
      response = adaptor.send ? await adaptor.send(built, init, { call, http: this.upstream }) : await this.upstream.sendBuilt(built, init);
    } catch (error) {
      const failure = sendFailure(error, input.signal.aborted, channel);
      return failed(failure.error, failure.retryable, failure.channelFault);
    }
    const headersAt = performance.now();

    if (response.status !== 200) {
      const failure = await statusFailure(response, channel, (status) => this.retry.shouldRetryStatus(status));
      return failed(failure.error, failure.retryable, failure.channelFault);
    }
    const held = await heldBack(input, upstreamModel);
    if (held) return { ...held, conversion };

    const streamType = adaptor.streamFraming?.contentType ?? 'text/event-stream';
    if (request.stream && String(response.headers['content-type'] ?? '').includes(streamType)) {
      const encoder = passThrough
        ? undefined
        : inbound.streamEncoder({ model: request.model, promptTokens: input.promptTokens, includeUsage: request.includeUsage });
      const framer = await adaptor.streamFraming?.reader();
      const rewrite = passThrough && !relaysVerbatim(channel, this.settings);
      const stream = new FormatStream(
        native.streamDecoder(request.model, this.settings),
        encoder,
        input.promptTokens,
        input.countText,
        framer,
        rewrite,
      );
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
      const interrupted = streamInterruption(outcome.error, input.signal.aborted);
      return { ok: true, upstreamModel, usage, localCount: local, frtMs, retryable: false, interrupted, conversion };
    }

    if (!request.stream && adaptor.streamOnly && String(response.headers['content-type'] ?? '').includes(streamType))
      return this.readWhole(response, native, inbound, input, upstreamModel, headersAt, conversion, failed, channel);

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
      const message = native.errorMessage?.(parsed);
      const error = upstreamStatusError(message ? JSON.stringify({ message }) : text, 500, channel);
      return failed(error, this.retry.shouldRetryStatus(500), { status: 200, message: error.message });
    }
    // A refused prompt: converted clients get new-api's 400 prompt_blocked; a client of the provider's own format
    // gets the answer as sent (new-api passes Gemini's promptFeedback through to Gemini clients, and bills it).
    const blocked = passThrough ? undefined : native.blockedPrompt?.(parsed);
    if (blocked !== undefined) {
      const failure = promptBlockedFailure(blocked, channel, (status) => this.retry.shouldRetryStatus(status));
      return failed(failure.error, failure.retryable, failure.channelFault);
    }
    const { response: hub, usage: reported } = native.responseToHub(parsed, request.model);
    const usage: Usage = reported ?? {
      promptTokens: input.promptTokens,
      completionTokens: input.countText(hubAnswerText(hub)),
      cachedTokens: 0,
    };
    // Same format: the provider's answer as sent (no lossy round trip); otherwise the hub answer in the client's format.
    const out = passThrough && reported ? text : JSON.stringify(inbound.responseFromHub(hub, usage, request.model));
    sendAnswer(input.res, redactChannelText(out, channel));
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

  /**
   * A non-chat route on a provider's own API (Cohere rerank, Replicate and Google images): one JSON call, signed
   * or authorised as the adaptor's calls are (a Vertex AI access token), its answer mapped back.
   */
  private async providerEndpoint(
    channel: RelayChannel,
    adaptor: ChannelAdaptor,
    endpoint: ProviderEndpoint,
    input: ForwardInput,
    upstreamModel: string,
    place: AttemptPlace,
    failed: (error: RelayError, retryable: boolean, channelFault?: Attempt['channelFault']) => Attempt,
  ): Promise<Attempt> {
    const plain: AdaptorCall = { channel, model: upstreamModel, stream: false, settings: this.settings };
    let native: Record<string, unknown>;
    try {
      native = endpoint.body(input.request.body, upstreamModel, this.settings);
    } catch (error) {
      if (error instanceof AdaptorRequestError) return failed(badRequest(error.message), false);
      throw error;
    }
    const overridden = this.override(plain, native, input, place);
    if ('failure' in overridden) return failed(overridden.failure.error, overridden.failure.retryable);
    const { call, body } = overridden;
    let response: UpstreamResponse;
    try {
      const { built, rawBody } = await adaptorRequest(adaptor, call, body, endpoint.build(call));
      response = await this.upstream.sendBuilt(built, { body, rawBody, signal: input.signal });
    } catch (error) {
      const failure = sendFailure(error, input.signal.aborted, channel);
      return failed(failure.error, failure.retryable, failure.channelFault);
    }
    const headersAt = performance.now();
    // Replicate answers a created prediction with 201.
    if (response.status < 200 || response.status >= 300) {
      const failure = await statusFailure(response, channel, (status) => this.retry.shouldRetryStatus(status));
      return failed(failure.error, failure.retryable, failure.channelFault);
    }
    const held = await heldBack(input, upstreamModel);
    if (held) return held;
    let parsed: ReturnType<typeof parseJsonObject>;
    try {
      parsed = parseJsonObject(await response.text());
    } catch (error) {
      const relayError = transportError(error, channel);
      return failed(relayError, !input.signal.aborted, input.signal.aborted ? undefined : { message: relayError.message });
    }
    let mapped: ReturnType<ProviderEndpoint['answer']> | undefined;
    try {
      mapped = parsed ? endpoint.answer(parsed) : undefined;
    } catch (error) {
      const message = redactChannelKeys(String((error as Error)?.message ?? error), channel);
      return failed(new RelayError(message, 502, 'bad_response_body', 'upstream_error'), true, { status: 200, message });
    }
    if (!mapped)
      return failed(new RelayError('upstream answer is not a JSON object', 502, 'bad_response_body', 'upstream_error'), true, {
        status: 200,
        message: 'bad response body',
      });
    const { response: answer, usage: reported } = mapped;
    // No token count from the provider (Cohere bills search units, images are billed per call): the local estimate.
    const usage: Usage = reported ?? { promptTokens: input.promptTokens, completionTokens: 0, cachedTokens: 0 };
    const out = JSON.stringify({ ...answer, usage: toOpenAiUsage(usage) });
    sendAnswer(input.res, redactChannelText(out, channel));
    return { ok: true, upstreamModel, usage, localCount: !reported, frtMs: Math.round(headersAt - input.startedAt), retryable: false };
  }

  /**
   * The channel's param override on one provider body, for this attempt: header operations give the call its
   * own header override, which the adaptor builds the request with.
   */
  private override(call: AdaptorCall, body: Record<string, unknown>, input: ForwardInput, place: AttemptPlace): ReturnType<CallOverride> {
    const { channel } = call;
    if (!channel.paramOverride) return { call, body };
    const applied = overrideForAttempt(
      body,
      channel.paramOverride,
      channel.upstream.headerOverride ?? null,
      overrideFacts(input, call.model, place),
      (status) => this.retry.shouldRetryStatus(status),
    );
    if ('failure' in applied) return applied;
    const headerOverride = applied.headerOverride;
    return {
      body: applied.body,
      call: headerOverride ? { ...call, channel: { ...channel, upstream: { ...channel.upstream, headerOverride } } } : call,
    };
  }

  /** A stream-only provider's stream read whole into one answer in the client's format. */
  private async readWhole(
    response: UpstreamResponse,
    native: ProviderCodec,
    inbound: FormatCodec,
    input: ForwardInput,
    upstreamModel: string,
    headersAt: number,
    conversion: string[] | undefined,
    failed: (error: RelayError, retryable: boolean, channelFault?: Attempt['channelFault']) => Attempt,
    channel: RelayChannel,
  ): Promise<Attempt> {
    const { request } = input;
    let whole: ReturnType<typeof aggregateStream>;
    try {
      const reader = new SseEventReader();
      const events = [...reader.push(await response.text()), ...reader.end()];
      whole = aggregateStream(native.streamDecoder(request.model, this.settings), events, request.model);
    } catch (error) {
      const message = redactChannelKeys(String((error as Error)?.message ?? error), channel);
      return failed(new RelayError(message, 502, 'bad_response_body', 'upstream_error'), !input.signal.aborted, { message });
    }
    const usage: Usage = whole.usage ?? {
      promptTokens: input.promptTokens,
      completionTokens: input.countText(hubAnswerText(whole.response)),
      cachedTokens: 0,
    };
    const out = JSON.stringify(inbound.responseFromHub(whole.response, usage, request.model));
    sendAnswer(input.res, redactChannelText(out, channel));
    return {
      ok: true,
      upstreamModel,
      usage,
      localCount: !whole.usage,
      frtMs: Math.round(headersAt - input.startedAt),
      retryable: false,
      conversion,
    };
  }
}
