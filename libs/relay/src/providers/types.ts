import type { IncomingHttpHeaders } from 'node:http';
import type { RelayChannel } from '@gw/channel';
import type { Dispatcher } from 'undici';
import type { BuiltRequest, UpstreamRequestInit, UpstreamResponse } from '@gw/upstream';
import type { Usage } from '../stream/usage.js';

/**
 * The wire formats the relay speaks, on either side: what a client sends at its route, and what a
 * channel's provider understands natively. OpenAI chat is the hub every conversion goes through.
 * `responses` (OpenAI Responses) is inbound only: it reaches OpenAI channels by pass-through.
 */
export type FormatId = 'openai' | 'anthropic' | 'gemini' | 'responses' | ProviderFormatId;

/** Formats only providers speak (no client route): Dify chat apps, Cohere chat, Coze bots, Replicate (no chat). */
export type ProviderFormatId = 'dify' | 'cohere' | 'cohere_v2' | 'coze' | 'replicate';

/**
 * A JSON object off the wire, from a client or a provider. Loosely typed on purpose: converters read
 * optional fields of many shapes defensively (every access is checked before use), and a precise type per
 * provider version would be longer than the converters themselves.
 */
export type Json = Record<string, any>;

/** OpenAI chat completion request, response and stream chunk: the hub format. */
export type HubRequest = Json;
export type HubResponse = Json;
export type HubChunk = Json;

/** One server-sent event as read off the wire. */
export interface SseEvent {
  event: string;
  data: string;
  /** A `meta:` field (Zhipu v3 puts the final usage there); absent for every other provider. */
  meta?: string;
}

/** Reads a provider's native stream, event by event, as hub chunks; keeps the usage it saw (last one wins). */
export interface StreamDecoder {
  /** Hub chunks for this event (none for bookkeeping events). Throws on an in-stream error event. */
  decode(event: SseEvent): HubChunk[];
  usage(): Usage | undefined;
  /**
   * Same-format streams (relayed as they came): event types the client should get with other data than the
   * provider sent, and that data for one such event (already decoded), or undefined to send it unchanged.
   */
  readonly rewrites?: ReadonlySet<string>;
  rewrite?(event: SseEvent): string | undefined;
}

/** Writes hub chunks in a client's own stream format. */
export interface StreamEncoder {
  encode(chunk: HubChunk): string;
  /** Closes the stream with the final usage (upstream's, or counted here). */
  end(usage: Usage): string;
}

/** What an encoder may need to know of the request it answers. */
export interface EncodeContext {
  model: string;
  /** The local prompt estimate, for formats that announce input tokens before any usage arrives. */
  promptTokens: number;
  /** OpenAI clients that asked for the usage chunk (`stream_options.include_usage`). */
  includeUsage: boolean;
}

/**
 * Everything the relay knows of one wire format. The inbound half serves clients that speak it; the
 * channel half talks to providers that speak it. Each format converts only to and from the hub, so N
 * formats need 2N converters.
 */
export interface FormatCodec {
  id: FormatId;
  // ---- inbound: a client speaks this format ----
  requestToHub(body: Record<string, unknown>, model: string, stream: boolean): HubRequest;
  responseFromHub(response: HubResponse, usage: Usage, model: string): unknown;
  streamEncoder(context: EncodeContext): StreamEncoder;
  /** The error body this format's clients expect. */
  errorBody(message: string, type: string, status: number, code: string | number | null): unknown;
  // ---- channel side: a provider speaks this format ----
  requestFromHub(request: HubRequest, model: string, settings: ProviderSettings): Record<string, unknown>;
  /** A native answer as hub response and its usage (undefined when the provider sent none). */
  responseToHub(native: Json, model: string): { response: HubResponse; usage?: Usage };
  streamDecoder(model: string, settings?: ProviderSettings): StreamDecoder;
  /** True when a native non-stream body is an error object and not an answer. */
  isErrorBody(native: Json): boolean;
  /** The message of a native error body, for providers whose errors are not `{error:{message}}` or `{message}`. */
  errorMessage?(native: Json): string | undefined;
  /**
   * Why the provider refused the prompt itself in a 200 answer that has no answer (Gemini's
   * promptFeedback.blockReason), as the client's error message; undefined for any other body.
   */
  blockedPrompt?(native: Json): string | undefined;
}

/**
 * Wire formats only providers speak (no client route speaks them): their codec is the channel half of a
 * FormatCodec, carried by the adaptor itself.
 */
export type NativeFormatId = 'baidu' | 'zhipu_v3' | 'dashscope' | 'hunyuan' | 'palm' | 'ollama' | 'ai_proxy_library' | 'spark';

/** The channel half of a codec: what a provider-only wire format needs. */
export type ProviderCodec = Pick<
  FormatCodec,
  'requestFromHub' | 'responseToHub' | 'streamDecoder' | 'isErrorBody' | 'errorMessage' | 'blockedPrompt'
>;

/** How the relay reaches the network from an adaptor that must make its own calls (an OAuth token first, ...). */
export interface AdaptorHttp {
  sendBuilt(built: BuiltRequest, init?: UpstreamRequestInit): Promise<UpstreamResponse>;
  /**
   * For a call made over another transport (Spark's WebSocket): the pool to connect through when the channel's
   * base URL must stay public (UpstreamClient.publicOnlyDispatcher, threats S5), else undefined.
   */
  publicOnlyDispatcher(rule: { publicOnly?: boolean }): Dispatcher | undefined;
}

/**
 * A provider's native embeddings API: OpenAI's `/v1/embeddings` request in, OpenAI's answer out. The
 * native error body is recognised by the adaptor's codec (isErrorBody / errorMessage). The adaptor's
 * `authorize`, when it has one, is applied to the built request as for chat.
 */
export interface EmbeddingAdaptor {
  buildRequest(call: AdaptorCall): BuiltRequest;
  /** Throws an AdaptorRequestError for input the provider cannot take (the client gets a 400). */
  requestFromOpenAi(body: Json, model: string): Json;
  /** Throws when a 2xx answer carries no usable embedding (the client gets a 502 bad_response_body). */
  responseToOpenAi(native: Json, model: string): { response: Json; usage?: Usage };
}

/** Runtime options a provider's conversion reads (claude.*, gemini.* options), and its start-up switches. */
export interface ProviderSettings {
  get<T = unknown>(key: string): T;
  /** DIFY_DEBUG: Dify's workflow and node events become reasoning lines of the answer. */
  readonly difyDebug?: boolean;
}

/** One upstream call an adaptor is asked to build. */
export interface AdaptorCall {
  channel: RelayChannel;
  /** The upstream model name (after mapping). */
  model: string;
  stream: boolean;
  settings: ProviderSettings;
  /** The client's request headers (a few, such as anthropic-beta, are passed on to the provider). */
  clientHeaders?: IncomingHttpHeaders;
}

/**
 * A channel type's adaptor: where and how its provider is called, and in which format. Adding a
 * provider is a folder with one of these (and, for a new wire format, its codec) plus a registration.
 */
export type ChannelAdaptor = AdaptorParts &
  (
    | { /** The wire format the provider speaks for chat-like calls. */ format: FormatId; codec?: undefined }
    | { /** A provider-only wire format, read and written by `codec`. */ format: NativeFormatId; codec: ProviderCodec }
  );

interface AdaptorParts {
  /** URL, method and headers of a chat-like call (the body is the codec's). */
  buildChatRequest(call: AdaptorCall): BuiltRequest;
  /** Last touches to a native body before it is sent (default max tokens, safety settings...). */
  finishBody?(body: Record<string, unknown>, call: AdaptorCall, converted: boolean): Record<string, unknown>;
  /** The provider's own embeddings API, when it has one (the relay answers 400 to embeddings otherwise). */
  embeddings?: EmbeddingAdaptor;
  /**
   * Gemini's `:embedContent` / `:batchEmbedContents` (Google's Gemini API only): a Gemini client's native
   * embeddings call, passed through; channels without it answer 400 to those routes.
   */
  geminiEmbeddings?(call: AdaptorCall, batch: boolean): BuiltRequest;
  /**
   * Sends the built request itself, for providers whose call is more than one HTTP request (Baidu fetches
   * an OAuth token first) or another transport; the answer is read as if it came over HTTP (a stream as SSE).
   */
  send?(built: BuiltRequest, init: UpstreamRequestInit, context: { call: AdaptorCall; http: AdaptorHttp }): Promise<UpstreamResponse>;
  /**
   * Auth that depends on the serialised body or on a remote token (AWS SigV4, a Google OAuth access token):
   * the built request with its final headers. Throws an AdaptorAuthError when the channel's key is unusable.
   */
  authorize?(built: BuiltRequest, body: string, call: AdaptorCall): Promise<BuiltRequest>;
  /**
   * Providers that serve several wire formats by model (Vertex: Gemini and Claude) or by channel setting
   * (Cohere v1/v2 by `other`): the adaptor for one call.
   */
  forModel?(model: string, channel: RelayChannel): ChannelAdaptor;
  /**
   * A stream that is not server-sent events (AWS event-stream frames, NDJSON): how its bytes become events,
   * and the content type that marks a stream answer (default text/event-stream). The reader may be a promise:
   * its decoder may be loaded on first use.
   */
  streamFraming?: { contentType: string; reader(): StreamFramer | Promise<StreamFramer> };
  /** False for providers with no chat API (Replicate): chat-like requests get a clear 400, only `endpoints` are served. */
  servesChat?: false;
  /** Always called in streaming mode; a client's single answer is the whole stream read into one (Coze). */
  streamOnly?: boolean;
  /**
   * Non-chat routes in the provider's own API, by request kind (`rerank` for Cohere, `images_generations` for
   * Replicate): one JSON call each, its answer given back in the OpenAI-style shape the client asked for.
   */
  endpoints?: Partial<Record<string, ProviderEndpoint>>;
}

export interface ProviderEndpoint {
  build(call: AdaptorCall): BuiltRequest;
  /** Throws an AdaptorRequestError for a request the provider cannot take (the client's 400, not retried). */
  body(request: Record<string, unknown>, model: string, settings: ProviderSettings): Record<string, unknown>;
  /**
   * The client's answer (rerank `{results}`, images `{created, data}`) and the usage when the provider reports
   * tokens; throws when the provider's 2xx answer is a failure (a failed prediction).
   */
  answer(native: Json): { response: Json; usage?: Usage };
}

/** Turns a provider's stream bytes into events the codec's decoder reads. */
export interface StreamFramer {
  push(chunk: Buffer): SseEvent[];
  end(): SseEvent[];
}

/** The channel's key cannot be used as this provider needs it (bad AK|SK|Region, bad service-account JSON). */
export class AdaptorAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdaptorAuthError';
  }
}

/** The client's request is one this provider cannot take as sent (Vertex embeds one text per call): a 400, not retried. */
export class AdaptorRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdaptorRequestError';
  }
}
