import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** The gateway's own share of a call is small: finer buckets at the low end. */
const OVERHEAD_SECONDS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Every metric the gateway exports, on a registry of its own (not prom-client's global one), so that
 * several gateways in one process (tests, multi-instance runs) never mix their numbers. No label ever
 * carries a user, key or IP: only bounded values (route patterns, models and groups that a channel
 * serves, channel ids, statuses).
 */
@Injectable()
export class GatewayMetrics implements OnModuleDestroy {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests served by the console API and pages, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'Time to answer an HTTP request (console API and pages)',
    labelNames: ['route', 'method'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });

  readonly relayRequests = new Counter({
    name: 'gateway_relay_requests_total',
    help: 'Relayed calls by kind, model, channel, group and HTTP status (model/group/channel empty when no channel was reached)',
    labelNames: ['kind', 'model', 'channel', 'group', 'status'] as const,
    registers: [this.registry],
  });

  readonly relayOverhead = new Histogram({
    name: 'gateway_relay_overhead_seconds',
    help: "The gateway's own time per relayed call: total time minus time spent on upstream",
    labelNames: ['kind'] as const,
    buckets: OVERHEAD_SECONDS,
    registers: [this.registry],
  });

  readonly relayDuration = new Histogram({
    name: 'gateway_relay_duration_seconds',
    help: 'Total time per relayed call, by kind and model',
    labelNames: ['kind', 'model'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });

  readonly firstToken = new Histogram({
    name: 'gateway_relay_first_token_seconds',
    help: 'Time from the request to the first upstream byte of a streamed answer, by model',
    labelNames: ['model'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });

  readonly tokens = new Counter({
    name: 'gateway_relay_tokens_total',
    help: 'Tokens billed, by model and type (prompt, completion)',
    labelNames: ['model', 'type'] as const,
    registers: [this.registry],
  });

  readonly quota = new Counter({
    name: 'gateway_relay_quota_total',
    help: 'Quota charged, by model',
    labelNames: ['model'] as const,
    registers: [this.registry],
  });

  readonly channelFailures = new Counter({
    name: 'gateway_channel_failures_total',
    help: 'Failed upstream attempts, by channel',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  onModuleDestroy(): void {
    this.registry.clear();
  }
}
