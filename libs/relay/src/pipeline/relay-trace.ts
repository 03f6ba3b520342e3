import type { IncomingMessage, ServerResponse } from 'node:http';
import { publishRelayDone, relayDoneChannel, type RelayDoneEvent } from '@gw/core';
import type { ForwardResult } from './upstream-call.js';

/**
 * Collects the timings and outcome of one relayed call for operations (metrics, access log) and
 * publishes them when the call is over. Created only when someone listens, so the relay's hot path
 * pays nothing otherwise.
 */
export class RelayTrace {
  private readonly event: RelayDoneEvent;
  private forwardAt = 0;

  static start(kind: string, requestId: string, startedAt: number, req: IncomingMessage): RelayTrace | undefined {
    return relayDoneChannel.hasSubscribers ? new RelayTrace(kind, requestId, startedAt, req) : undefined;
  }

  private constructor(
    kind: string,
    requestId: string,
    private readonly startedAt: number,
    req: IncomingMessage,
  ) {
    this.event = {
      requestId,
      kind,
      model: '',
      group: '',
      channelId: 0,
      usedChannels: [],
      ok: false,
      status: 0,
      stream: false,
      totalMs: 0,
      upstreamMs: 0,
      firstTokenMs: 0,
      promptTokens: 0,
      completionTokens: 0,
      quota: 0,
      origin: (req.socket as { server?: unknown } | null)?.server,
    };
  }

  /** A channel serves the model: from here on the model and group are bounded labels, not client input. */
  routed(model: string, group: string, stream: boolean): void {
    this.event.model = model;
    this.event.group = group;
    this.event.stream = stream;
  }

  forwarding(): void {
    this.forwardAt = performance.now();
  }

  forwarded(forward: ForwardResult): void {
    const e = this.event;
    e.upstreamMs = performance.now() - this.forwardAt;
    e.channelId = forward.channel.id;
    e.usedChannels = forward.usedChannels;
    e.ok = forward.ok;
    e.firstTokenMs = forward.ok ? forward.frtMs : 0;
    e.promptTokens = forward.usage?.promptTokens ?? 0;
    e.completionTokens = forward.usage?.completionTokens ?? 0;
  }

  charged(quota: number): void {
    this.event.quota = quota;
  }

  finish(res: ServerResponse): void {
    this.event.totalMs = performance.now() - this.startedAt;
    this.event.status = res.statusCode;
    publishRelayDone(this.event);
  }
}
