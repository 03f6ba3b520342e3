import { Injectable } from '@nestjs/common';
import type { WebSocket } from 'ws';
import { ChannelHealthService, ChannelKeyService, type RelayChannel } from '@gw/channel';
import { type CancelSignal, type SocketOpening, UpstreamClient } from '@gw/upstream';
import type { FailedAttempt } from '../log/error-log.js';
import type { ChannelRoute } from '../pipeline/channel-selection.js';
import { RelayError } from '../pipeline/relay-error.js';
import { RetryPolicy } from '../pipeline/retry-policy.js';
import { ModelMappingCycleError, resolveModelMapping } from '../pipeline/upstream-body.js';
import { type AttemptFailure, transportFailure, upstreamStatusError } from '../pipeline/upstream-error.js';

/** The largest frame either side may send (new-api's realtime read limit); a bigger one closes the session (1009). */
export const REALTIME_MAX_FRAME_BYTES = 8 * 1024 * 1024;

/** A provider socket open for the session, and where it came from. */
export interface RealtimeUpstream {
  socket: WebSocket;
  channel: RelayChannel;
  usedChannels: number[];
  upstreamModel: string;
}

type Attempt = { socket: WebSocket; upstreamModel: string } | AttemptFailure;

/**
 * Opens the provider's Realtime socket for a session the way the HTTP relay sends a request: the route's
 * channel first (its model mapping, one of its keys), then on a retryable failure the next channel RetryTimes
 * allows; every failure is reported to channel health (and to `onFailure`, the error log). A refused upgrade carries the provider's error as the
 * HTTP relay reports an error status; no answer at all is a connect failure.
 */
@Injectable()
export class RealtimeConnector {
  constructor(
    private readonly upstream: UpstreamClient,
    private readonly keys: ChannelKeyService,
    private readonly health: ChannelHealthService,
    private readonly retry: RetryPolicy,
  ) {}

  /** The open socket, or throws the client's error once no channel is left to try. */
  async connect(
    route: ChannelRoute,
    model: string,
    beta: boolean,
    signal: CancelSignal,
    onFailure?: (failure: FailedAttempt) => void,
  ): Promise<RealtimeUpstream> {
    const tried = new Set<number>();
    const usedChannels: number[] = [];
    let channel = route.channel;
    for (;;) {
      tried.add(channel.id);
      usedChannels.push(channel.id);
      const choice = this.keys.choose(channel);
      const attempt: Attempt = choice ? await this.attempt(channel, choice.upstream, model, beta, signal) : noKeyLeft();
      if ('socket' in attempt) {
        this.health.reportRelaySuccess(channel.id, choice?.keyIndex);
        return { socket: attempt.socket, channel, usedChannels, upstreamModel: attempt.upstreamModel };
      }
      if (attempt.channelFault) this.health.reportRelayFailure(channel.id, attempt.channelFault, choice?.keyIndex);
      if (onFailure && !signal.aborted)
        onFailure({ channel, error: attempt.error, usedChannels: [...usedChannels], keyIndex: choice?.keyIndex });
      if (!attempt.retryable || signal.aborted) throw attempt.error;
      const next = route.next(tried);
      if (!next) throw attempt.error;
      channel = next;
    }
  }

  private async attempt(
    channel: RelayChannel,
    target: RelayChannel['upstream'],
    model: string,
    beta: boolean,
    signal: CancelSignal,
  ): Promise<Attempt> {
    let upstreamModel: string;
    try {
      upstreamModel = resolveModelMapping(channel.modelMapping, model);
    } catch (error) {
      if (!(error instanceof ModelMappingCycleError)) throw error;
      const relayError = new RelayError(error.message, 500, 'channel:model_mapping_error');
      return { error: relayError, retryable: true, channelFault: { message: error.message, channelError: true } };
    }
    let opening: SocketOpening;
    try {
      opening = await this.upstream.openRealtime(target, upstreamModel, { beta, maxPayload: REALTIME_MAX_FRAME_BYTES, signal });
    } catch (error) {
      return transportFailure(error, signal.aborted, channel);
    }
    if ('socket' in opening) return { socket: opening.socket, upstreamModel };
    const { status, text } = opening.refused;
    // An answer that is no error but no switch either (a plain HTTP server at the base URL) is the channel's fault.
    const error =
      status >= 400
        ? upstreamStatusError(text, status, channel)
        : new RelayError(`upstream did not switch to WebSocket (status ${status})`, 502, 'bad_response');
    return {
      error,
      retryable: status >= 400 ? this.retry.shouldRetryStatus(status) : true,
      channelFault: { status, message: error.message },
    };
  }
}

function noKeyLeft(): AttemptFailure {
  const message = 'the channel has no enabled key left';
  return {
    error: new RelayError(message, 503, 'channel:no_available_key'),
    retryable: true,
    channelFault: { message, channelError: true },
  };
}
