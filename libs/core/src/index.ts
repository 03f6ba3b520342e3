export {
  loadConfig,
  versionOf,
  LOG_LEVELS,
  type AppConfig,
  type OpsConfig,
  type RateLimitRule,
  type ServerTimeouts,
} from './config/app-config.js';
export { APP_CONFIG, ConfigModule } from './config/config.module.js';
export { ConfigError } from './config/env-reader.js';
export { readCommandLine, USAGE, type CommandLineAction } from './config/command-line.js';
export type { DatabaseTarget, DatabaseTls, DatabaseType } from './config/database-dsn.js';
export { CoreModule } from './core.module.js';
export * from './errors/app-error.js';
export { DATABASE_UNAVAILABLE, INTERNAL_ERROR, isDatabaseUnavailable, serverFaultOf, type ServerFault } from './errors/server-fault.js';
export {
  isJsonText,
  jsonArray,
  jsonText,
  raw,
  withMessage,
  type Envelope,
  type JsonRun,
  type JsonText,
  type WithMessage,
} from './http/envelope.js';
export { NoEnvelope } from './http/envelope.interceptor.js';
export { GatewayExceptionFilter, NOT_FOUND_FALLBACK, type NotFoundFallback } from './http/exception.filter.js';
export { parsePage, parseZeroBasedPage, toPage, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Page, type PageRequest } from './http/pagination.js';
export * from './http/relay-paths.js';
export { bodyErrorAnswer, describeBodyError } from './http/body-errors.js';
export { body, ZodPipe } from './http/zod.pipe.js';
export { idParam, IdParamPipe } from './http/id-param.pipe.js';
export * from './auth/principal.js';
export { CriticalRateLimit, SearchRateLimit } from './rate-limit/rate-limit.decorators.js';
export { RedisService } from './redis/redis.service.js';
export {
  callPrimary,
  clusterBus,
  isClusterBroadcast,
  isClusterCall,
  type ClusterBroadcast,
  type ClusterCall,
  type ClusterReply,
} from './redis/cluster-bus.js';
export { THROTTLE_OP } from './rate-limit/cluster-throttler.storage.js';
export * from './net/outbound.js';
export { publishRelayDone, relayDoneChannel, type RelayDoneEvent } from './ops/relay-events.js';
export type { SystemStatus } from './ops/system-status.js';
export { SYSTEM_STATUS_SAMPLE_MS, SystemStatusService } from './ops/system-status.service.js';
export {
  readBoundedBody,
  parseJsonBody,
  jsonTooDeep,
  verifyJsonDepth,
  bodyError,
  MAX_JSON_DEPTH,
  MAX_INFLATION_RATIO,
} from './http/bounded-body.js';
export { cancelScheduled, scheduleEvery } from './schedule/periodic-job.js';
export { onFirstUse, requireOnFirstUse } from './modules/on-first-use.js';
