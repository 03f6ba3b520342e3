import { Module } from '@nestjs/common';
import { LogModule } from '@gw/log';
import { OptionModule } from '@gw/option';
import { HealthController } from './health/health.controller.js';
import { ReadinessService } from './health/readiness.service.js';
import { UptimeKumaService } from './health/uptime-kuma.service.js';
import { MetricsController } from './metrics/metrics.controller.js';
import { GATEWAY_METRICS, gatewayMetricsProvider } from './metrics/metrics-provider.js';
import { RelayMetrics } from './metrics/relay-metrics.js';
import { StateCollectors } from './metrics/state-collectors.js';

/** What an operator needs around the gateway: health and readiness probes, Prometheus metrics, status routes. */
@Module({
  imports: [OptionModule, LogModule],
  controllers: [HealthController, MetricsController],
  providers: [ReadinessService, UptimeKumaService, gatewayMetricsProvider, RelayMetrics, StateCollectors],
  exports: [ReadinessService, GATEWAY_METRICS],
})
export class OpsModule {}
