import type { Readable } from 'node:stream';

/**
 * What the upstream client needs of a channel. The channel lib maps its rows to this; the relay and
 * the channel tests both send through the same client, so a channel test exercises the relay's code.
 */
export interface UpstreamTarget {
  id: number;
  type: number;
  /** The provider key (one key; multi-key channels pick one before calling). */
  key: string;
  /** Channel base URL without a trailing slash; empty means the type's default. */
  baseUrl: string;
  /** Channel `other` field: Azure api-version, region, ... */
  other: string;
  /** Extra headers set by the admin (channel `header_override`). */
  headerOverride?: Record<string, string> | null;
  /** OpenAI organization header (channel `openai_organization`), sent to OpenAI only. */
  organization?: string | null;
  /** Channel creation time (unix seconds): Azure channels older than new-api's cutoff drop dots from deployments. */
  createdTime?: number;
  /**
   * The base URL was checked public when it was saved: while AllowPrivateOutboundUrls is off, a connection
   * for this channel refuses a name that now resolves to a private or reserved address (DNS rebinding).
   */
  publicOnly?: boolean;
}

export type UpstreamEndpoint =
  | 'chat'
  | 'completions'
  | 'embeddings'
  | 'responses'
  | 'responses_compact'
  | 'images_generations'
  | 'audio_speech'
  | 'images_edits'
  | 'audio_transcriptions'
  | 'audio_translations'
  | 'rerank'
  | 'moderations'
  | 'edits'
  | 'models'
  | 'billing_subscription'
  | 'billing_usage';

/**
 * What a call needs to be cancelled: an AbortSignal, or anything lighter with the same members (the relay
 * makes one per request; an AbortController costs an EventTarget and its listener map each time).
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface UpstreamRequestInit {
  method?: 'GET' | 'POST';
  /** JSON body (serialised by the client). */
  body?: unknown;
  /** A body sent as is with its own content type (multipart uploads); wins over `body`. */
  rawBody?: { bytes: Buffer; contentType: string };
  /** The upstream model name (after mapping): used by Azure's deployment path and similar. */
  model?: string;
  stream?: boolean;
  signal?: CancelSignal;
  query?: Record<string, string>;
  extraHeaders?: Record<string, string>;
  /** Overrides the first-byte (response headers) timeout, in milliseconds (channel tests use a shorter one). */
  headersTimeoutMs?: number;
  /** Overrides the idle body timeout (time without a byte, or without a complete line in an SSE or NDJSON stream), in milliseconds. */
  bodyTimeoutMs?: number;
  /** Overrides the json()/text() size cap, in bytes. */
  maxResponseBytes?: number;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The raw body stream; read it once, or use json()/text() (both capped at the response size limit). */
  body: Readable;
  /**
   * The raw body handed chunk by chunk to one consumer, without a stream in between (a relayed SSE stream
   * pays that machinery on every chunk). Another way to read it once, like `body`; a response an adaptor
   * rebuilt has none.
   */
  chunks?: BodyChunks;
  json<T = unknown>(): Promise<T>;
  text(): Promise<string>;
  /** The URL actually called (never includes the key). */
  url?: string;
}

/** Where a body's chunks go (BodyChunks.start); after end() or error() nothing more is called. */
export interface BodySink {
  /** A chunk; with BodyChunks.readEnds it may be a view of the connection's read buffer, valid until readEnd() returns. */
  data(chunk: Buffer): void;
  /**
   * The chunks of one connection read (or of held chunks handed over at once) have all been given: a sink
   * that gathers them writes now. A sink without it is only ever given bytes of its own.
   */
  readEnd?(): void;
  end(): void;
  error(error: Error): void;
}

/** A body read by one sink, with the connection's own pause/resume as back-pressure. */
export interface BodyChunks {
  /**
   * Every data() is followed by readEnd() within the same synchronous call (the sink then needs no timer to
   * write what it gathered, and may be lent views of the read buffer instead of copies).
   */
  readonly readEnds?: boolean;
  start(sink: BodySink): void;
  /** No more data() until resume(); the upstream socket is no longer read. */
  pause(): void;
  resume(): void;
  /** Abandons the body: a call still in flight is aborted, and the sink hears nothing more. */
  destroy(): void;
}

export type UpstreamFailureKind = 'connect' | 'timeout' | 'too_large' | 'redirect' | 'aborted' | 'unsupported' | 'bad_response';

/** A failure before or while reading the upstream response (not an upstream HTTP error status). */
export class UpstreamError extends Error {
  constructor(
    readonly kind: UpstreamFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}
