import { type AppConfig, ConfigError, loadConfig } from '@gw/core';
import { SchemaMismatchError } from '@gw/database';
import { type Gateway, startGateway } from './bootstrap.js';
import { installGracefulShutdown } from './graceful-shutdown.js';

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  let gateway: Gateway;
  try {
    gateway = await startGateway(config);
  } catch (error) {
    // An adopted database the gateway could not complete: say which columns, without a stack trace.
    if (error instanceof SchemaMismatchError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  installGracefulShutdown(gateway, { timeoutMs: config.ops.shutdownTimeoutSeconds * 1000, exit: (code) => process.exit(code) });
  gateway.logger.info(`gateway listening on ${gateway.url} (database: ${config.database.type}${config.redis ? ', redis' : ''})`);
}

void main();
