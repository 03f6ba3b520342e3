export { OpsModule } from './ops.module.js';
export { ReadinessService, type Phase, type ReadinessReport } from './health/readiness.service.js';
export { GatewayMetrics } from './metrics/gateway-metrics.js';
export { httpMetricsMiddleware } from './metrics/http-metrics.js';
export { setupOperations, type Operations, type OperationsOptions } from './operations.js';
export { GatewayLogger, createRootLogger, requestContext } from './logging/gateway-logger.js';
export { scrubSecrets, scrubUrl } from './logging/scrub.js';
