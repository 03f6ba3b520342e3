import cluster from 'node:cluster';
import { type AppConfig, ConfigError, loadConfig, readCommandLine, USAGE, versionOf } from '@gw/core';
import { SchemaMismatchError } from '@gw/database';
import { createRootLogger } from '@gw/ops';
import { type Gateway, startGateway } from './bootstrap.js';
import { runClusterPrimary } from './cluster/cluster-primary.js';
import { joinCluster } from './cluster/cluster-worker.js';
import { installGracefulShutdown } from './graceful-shutdown.js';

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    // new-api's flags (--port, --log-dir, --version, --help): its docker-compose and service files pass them.
    const { env, action } = readCommandLine(process.argv.slice(2), process.env);
    if (action !== 'run') {
      console.log(action === 'help' ? USAGE : versionOf(env));
      process.exit(0);
    }
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const inCluster = config.workers > 1;
  if (inCluster && cluster.isPrimary) {
    try {
      await runClusterPrimary(config, createRootLogger(config.ops.log));
    } catch (error) {
      exitOnKnownStartError(error);
      throw error;
    }
    return;
  }
  let gateway: Gateway;
  try {
    gateway = await startGateway(config, { migrate: !inCluster });
  } catch (error) {
    exitOnKnownStartError(error);
    throw error;
  }
  installGracefulShutdown(gateway, {
    timeoutMs: config.ops.shutdownTimeoutSeconds * 1000,
    exit: (code) => process.exit(code),
    signals: inCluster ? ['SIGTERM'] : undefined,
  });
  if (inCluster) {
    joinCluster(gateway);
    gateway.logger.info(`worker ${process.pid} listening on ${gateway.url}`);
    return;
  }
  gateway.logger.info(`gateway listening on ${gateway.url} (database: ${config.database.type}${config.redis ? ', redis' : ''})`);
}

/** An adopted database the gateway could not complete: say which columns, without a stack trace. */
function exitOnKnownStartError(error: unknown): void {
  if (error instanceof SchemaMismatchError) {
    console.error(error.message);
    process.exit(1);
  }
}

void main();
