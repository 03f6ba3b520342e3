import type { FactoryProvider } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@gw/core';
import type { GatewayMetrics } from './gateway-metrics.js';

/**
 * The gateway's metrics (a GatewayMetrics), or undefined while METRICS_ENABLED is off: prom-client, its
 * OpenTelemetry API and the event-loop delay sampler of its default metrics (a timer every 10 ms) are then
 * never loaded, and nothing records what nobody can scrape.
 */
export const GATEWAY_METRICS = Symbol('GatewayMetrics');

export type MaybeMetrics = GatewayMetrics | undefined;

export const gatewayMetricsProvider: FactoryProvider<Promise<MaybeMetrics>> = {
  provide: GATEWAY_METRICS,
  inject: [APP_CONFIG],
  useFactory: async (config: AppConfig) =>
    config.ops.metrics.enabled ? new (await import('./gateway-metrics.js')).GatewayMetrics() : undefined,
};
