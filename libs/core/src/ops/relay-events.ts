import diagnosticsChannel from 'node:diagnostics_channel';

/**
 * What the relay tells operations about one finished call. Sent on a diagnostics channel: the relay
 * does not depend on the metrics code, and a publish with no subscriber costs one boolean check.
 */
export interface RelayDoneEvent {
  requestId: string;
  /** Route kind (chat, completions, embeddings, messages, ...). */
  kind: string;
  /** The requested model; empty when the request never reached a channel (bad key, bad body, no route). */
  model: string;
  group: string;
  /** Last channel tried (0: none). */
  channelId: number;
  /** Every channel tried, in order; all but an ok last one failed. */
  usedChannels: readonly number[];
  ok: boolean;
  status: number;
  stream: boolean;
  /** Milliseconds, request start to the last byte. */
  totalMs: number;
  /** Milliseconds spent waiting on and relaying from upstream (retries included). */
  upstreamMs: number;
  /** Milliseconds to the first upstream byte (0 when nothing came). */
  firstTokenMs: number;
  promptTokens: number;
  completionTokens: number;
  quota: number;
  /** The HTTP server that took the request: several gateways in one process (tests) keep their calls apart. */
  origin?: unknown;
}

export const relayDoneChannel = diagnosticsChannel.channel('gw.relay.done');

export function publishRelayDone(event: RelayDoneEvent): void {
  relayDoneChannel.publish(event);
}
