import type { INestApplication, LogLevel } from '@nestjs/common';
import type { DestinationStream, Logger as Pino } from 'pino';
import type { AppConfig } from '@gw/core';
import { createRootLogger, GatewayLogger, levelFromNest } from './logging/gateway-logger.js';
import { relayAccessLog, requestLogging } from './logging/request-logging.js';
import { httpMetricsMiddleware } from './metrics/http-metrics.js';
import { GATEWAY_METRICS, type MaybeMetrics } from './metrics/metrics-provider.js';

export interface OperationsOptions {
  /** Nest-style levels (tests pass ['error']); otherwise LOG_LEVEL decides. */
  logLevels?: false | LogLevel[];
  /** Where log lines go instead of stdout (tests capture them). */
  logDestination?: DestinationStream;
}

export interface Operations {
  logger: Pino;
  /** Stops listening for relay events and writes out buffered log lines. */
  dispose(): void;
}

/**
 * Puts the operations layer around an application before it listens: structured logs for Nest and
 * for every request (with its id), HTTP metrics, and the relay access log. Called once by the bootstrap.
 */
export async function setupOperations(app: INestApplication, config: AppConfig, options: OperationsOptions = {}): Promise<Operations> {
  const level = options.logLevels === undefined ? config.ops.log.level : levelFromNest(options.logLevels);
  const logger = createRootLogger({ ...config.ops.log, level }, options.logDestination);
  app.useLogger(new GatewayLogger(logger));
  app.use(requestLogging(logger));
  const metrics = app.get<symbol, MaybeMetrics>(GATEWAY_METRICS);
  if (metrics) app.use(httpMetricsMiddleware(metrics));
  const stopRelayLog = relayAccessLog(logger, app.getHttpServer());
  // Loaded only when wanted: the document generator is a sizeable module graph a default install never uses.
  if (config.ops.docsEnabled) (await import('./docs/api-docs.js')).serveApiDocs(app, config.version);
  return {
    logger,
    dispose() {
      stopRelayLog();
      logger.flush();
    },
  };
}
