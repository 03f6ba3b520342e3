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
  /** Sends a minimal chat request ("hi", 16 tokens) in the provider's format for this (mapped) model. */
  probe(channel: RelayChannel, upstreamModel: string, limits: ProbeLimits): Promise<ProbeAnswer>;
}
