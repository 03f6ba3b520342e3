import 'reflect-metadata';
import type { LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import type { AppConfig } from '@gw/core';
import { LOG_DATA_SOURCE, runMigrations } from '@gw/database';
import { ReadinessService, setupOperations, type OperationsOptions } from '@gw/ops';
import type { Logger as Pino } from 'pino';
import { AppModule } from './app.module.js';
import { consoleStaticMiddlewares } from './console/console-static.js';
import { bodyParsers, noStoreOnApi } from './http/body-parsing.js';
import { applyServerTimeouts } from './http/server-timeouts.js';
import { holdPortWhileStarting } from './startup-probe.js';

export interface Gateway {
  app: NestExpressApplication;
  /** The port actually bound (useful with PORT=0 in tests). */
  port: number;
  url: string;
  /** The structured logger (JSON lines, LOG_LEVEL). */
  logger: Pino;
  close(): Promise<void>;
}

/**
 * Builds, migrates and starts the gateway. main.ts and the e2e tests both come through here, so the
 * tests exercise the same HTTP stack users get.
 */
export async function startGateway(
  config: AppConfig,
  options: {
    logger?: false | LogLevel[];
    logDestination?: OperationsOptions['logDestination'];
    /** False in a cluster worker: the primary migrated before forking it. */
    migrate?: boolean;
  } = {},
): Promise<Gateway> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    // Literal segments before parameters, whatever the module order: `/api/user/logout` is never `/api/user/:id`.
    routeResolutionStrategy: 'specificity',
    // Held until the structured logger is in place, then written through it.
    bufferLogs: true,
  });
  app.disable('x-powered-by');
  app.set('trust proxy', config.http.trustedProxies.length ? config.http.trustedProxies : false);
  const ops = await setupOperations(app, config, { logLevels: options.logger, logDestination: options.logDestination });
  app.use(noStoreOnApi);
  for (const middleware of bodyParsers(config.http.maxBodyBytes)) app.use(middleware);
  // FRONTEND_BASE_URL (slave nodes): the console is served elsewhere and its routes redirect there.
  if (!config.console.frontendBaseUrl) {
    for (const { path, handler } of consoleStaticMiddlewares(config.console.staticDir)) app.use(path, handler);
  }

  // PORT=0 (tests) names no port anyone could probe; holding one would only risk losing it in between.
  // A cluster worker (migrate: false) shares the port with its siblings: a probe there would answer 503 for
  // the ones already serving; the primary held the port while it migrated.
  const probe =
    config.http.port === 0 || options.migrate === false ? undefined : await holdPortWhileStarting(config.http.port, config.http.host);
  try {
    if (options.migrate !== false) {
      const main = app.get(DataSource);
      await runMigrations(main);
      // LOG_SQL_DSN: the log database's own migrations (the same data source when the logs live on the main one).
      const logs = app.get<DataSource>(LOG_DATA_SOURCE);
      if (logs !== main) await runMigrations(logs);
    }
  } catch (error) {
    // Release the pool so a failed start (e.g. a schema it cannot adopt) leaves nothing open.
    await app.close().catch(() => undefined);
    throw error;
  } finally {
    await probe?.close();
  }
  applyServerTimeouts(app.getHttpServer(), config.http.timeouts);
  await listenWithBacklog(app, config.http);
  app.get(ReadinessService).markReady();

  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.http.port;
  const host = config.http.host === '0.0.0.0' ? '127.0.0.1' : config.http.host;
  return {
    app,
    port,
    url: `http://${host}:${port}`,
    logger: ops.logger,
    close: async () => {
      await app.close();
      ops.dispose();
    },
  };
}

/**
 * app.listen with the listen queue's length (LISTEN_BACKLOG). Nest forwards its arguments to Node's
 * server.listen(port, host, backlog) but types only (port, host); going through it keeps Nest's own
 * bookkeeping (listening state, buffered logs, start errors). In a cluster worker the backlog travels to
 * the primary, which owns the listening socket.
 */
function listenWithBacklog(app: NestExpressApplication, http: AppConfig['http']): Promise<unknown> {
  const listen = app.listen.bind(app) as unknown as (port: number, host: string, backlog: number) => Promise<unknown>;
  return listen(http.port, http.host, http.backlog);
}
