import { Module } from '@nestjs/common';
import { LogModule } from '@gw/log';
import { OptionModule } from '@gw/option';
import { HealthController } from './health/health.controller.js';
import { ReadinessService } from './health/readiness.service.js';
import { UptimeKumaService } from './health/uptime-kuma.service.js';
import { MetricsController } from './metrics/metrics.controller.js';
import { GATEWAY_METRICS, gatewayMetricsProvider } from './metrics/metrics-provider.js';
import { RelayMetrics } from './metrics/relay-metrics.js';
import { PerformanceController } from './performance/performance.controller.js';
import { PerformanceService } from './performance/performance.service.js';
import { StateCollectors } from './metrics/state-collectors.js';
import { ReleaseCheckController } from './release/release-check.controller.js';
import { ReleaseCheckService } from './release/release-check.service.js';

/** What an operator needs around the gateway: health and readiness probes, Prometheus metrics, status routes, the update check, the performance page. */
@Module({
  imports: [OptionModule, LogModule],
  controllers: [HealthController, MetricsController, ReleaseCheckController, PerformanceController],
  providers: [
    ReadinessService,
    UptimeKumaService,
    ReleaseCheckService,
    gatewayMetricsProvider,
    RelayMetrics,
    StateCollectors,
    PerformanceService,
  ],
  exports: [ReadinessService, GATEWAY_METRICS],
})
export class OpsModule {}
