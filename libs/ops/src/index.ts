export { OpsModule } from './ops.module.js';
export { ReadinessService, type Phase, type ReadinessReport } from './health/readiness.service.js';
export type { GatewayMetrics } from './metrics/gateway-metrics.js';
export { GATEWAY_METRICS } from './metrics/metrics-provider.js';
export { httpMetricsMiddleware } from './metrics/http-metrics.js';
export { setupOperations, type Operations, type OperationsOptions } from './operations.js';
export { GatewayLogger, createRootLogger, requestContext } from './logging/gateway-logger.js';
export { scrubSecrets, scrubUrl } from './logging/scrub.js';
