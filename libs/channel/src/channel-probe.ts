import type { RelayChannel } from './relay-channel.js';

/** What a probe answers: the upstream status and body, and whether that body is an error object of the provider's format. */
export interface ProbeAnswer {
  status: number;
  text: string;
  errorBody: boolean;
}

export interface ProbeLimits {
  timeoutMs: number;
  maxBytes: number;
}

/**
 * Channel tests of providers with their own wire format (Claude, Gemini, Bedrock, Vertex...) go through the
 * relay's adaptors, which live above this lib: the relay registers itself here (ChannelTestService.useAdaptorProbe)
 * so that a test builds exactly the request the relay would send.
 */
export interface AdaptorProbe {
  /** True when the relay has an adaptor of its own wire format for this channel type. */
  canTest(type: number): boolean;
  /**
   * Sends a minimal chat request ("hi", 16 tokens) in the provider's format for this (mapped) model, or for an
   * embedding model an embeddings request of "hi" to the provider's embeddings API when it has one.
   */
  probe(channel: RelayChannel, upstreamModel: string, limits: ProbeLimits): Promise<ProbeAnswer>;
  /**
   * The channel's param override on a test body of an OpenAI-compatible channel (the relay runs overrides, with
   * `is_channel_test` true in their context); throws with the reason when the override refuses or cannot run.
   */
  overrideTestBody(channel: RelayChannel, test: TestRequest): TestOverride;
}

/** A channel test's request, as the param override sees it. */
export interface TestRequest {
  body: Record<string, unknown>;
  /** The model tested, and the name it maps to on the channel. */
  model: string;
  upstreamModel: string;
  /** The relay route the test stands for (/v1/chat/completions, /v1/embeddings). */
  requestPath: string;
}

/** A test body after the channel's param override, and the header override to send with it when operations changed it. */
export interface TestOverride {
  body: Record<string, unknown>;
  headerOverride?: Record<string, string>;
}
