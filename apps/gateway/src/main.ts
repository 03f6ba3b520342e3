import { ConfigError, loadConfig } from '@gw/core';
import { startGateway } from './bootstrap.js';

async function main(): Promise<void> {
  let config;
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
  console.log(`gateway listening on ${gateway.url} (database: ${config.database.type}${config.redis ? ', redis' : ''})`);
}

void main();
