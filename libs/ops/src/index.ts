export { OpsModule } from './ops.module.js';
export { ReadinessService, type Phase, type ReadinessReport } from './health/readiness.service.js';
export { GatewayMetrics } from './metrics/gateway-metrics.js';
export { httpMetricsMiddleware } from './metrics/http-metrics.js';
