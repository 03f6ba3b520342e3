import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { relayDoneChannel, type RelayDoneEvent } from '@gw/core';
import { GATEWAY_METRICS, type MaybeMetrics } from './metrics-provider.js';

/** Turns each finished relay call (published by the relay) into counters and histograms, exactly once. */
@Injectable()
export class RelayMetrics implements OnModuleInit, OnModuleDestroy {
  private readonly listener = (message: unknown) => {
    const event = message as RelayDoneEvent;
    // Another gateway in the same process (tests) publishes on the same channel.
    if (event.origin === undefined || event.origin === this.host.httpAdapter?.getHttpServer()) this.record(event);
  };

  constructor(
    @Inject(GATEWAY_METRICS) private readonly metrics: MaybeMetrics,
    private readonly host: HttpAdapterHost,
  ) {}

  /** Only when metrics are on: with no listener the relay skips building its report altogether. */
  onModuleInit(): void {
    if (this.metrics) relayDoneChannel.subscribe(this.listener);
  }

  onModuleDestroy(): void {
    relayDoneChannel.unsubscribe(this.listener);
  }

  record(e: RelayDoneEvent): void {
    const m = this.metrics;
    if (!m) return;
    const channel = e.channelId ? String(e.channelId) : '';
    m.relayRequests.inc({ kind: e.kind, model: e.model, channel, group: e.group, status: String(e.status) });
    m.relayDuration.observe({ kind: e.kind, model: e.model }, e.totalMs / 1000);
    m.relayOverhead.observe({ kind: e.kind }, Math.max(0, e.totalMs - e.upstreamMs) / 1000);
    if (e.stream && e.ok && e.firstTokenMs > 0) m.firstToken.observe({ model: e.model }, e.firstTokenMs / 1000);
    if (e.promptTokens) m.tokens.inc({ model: e.model, type: 'prompt' }, e.promptTokens);
    if (e.completionTokens) m.tokens.inc({ model: e.model, type: 'completion' }, e.completionTokens);
    if (e.quota) m.quota.inc({ model: e.model }, e.quota);
    const failed = e.ok ? e.usedChannels.length - 1 : e.usedChannels.length;
    for (let i = 0; i < failed; i++) m.channelFailures.inc({ channel: String(e.usedChannels[i]) });
  }
}
