import { type AppConfig, ConfigError, loadConfig } from '@gw/core';
import { startGateway } from './bootstrap.js';
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
  const gateway = await startGateway(config);
  installGracefulShutdown(gateway, { timeoutMs: config.ops.shutdownTimeoutSeconds * 1000, exit: (code) => process.exit(code) });
  gateway.logger.info(`gateway listening on ${gateway.url} (database: ${config.database.type}${config.redis ? ', redis' : ''})`);
}

void main();
