import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LogLevel } from '@nestjs/common';
import pino from 'pino';

let counter = 0;

/**
 * How test gateways log. Normally errors only, to the console. With TEST_LOG_DIR set, every gateway a
 * suite starts logs everything (trace level) into its own file there, so that `node scripts/scan-test-logs.mjs
 * <dir>` can look for secrets in the lines a whole test run wrote (threats K3).
 */
export function testLogOptions(): { logger: LogLevel[]; logDestination?: pino.DestinationStream } {
  const dir = process.env.TEST_LOG_DIR;
  if (!dir) return { logger: ['error'] };
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `gateway-${process.pid}-${++counter}.log`);
  // Sync writes: a suite may end (and its worker exit) right after the gateway closes.
  return { logger: ['error', 'warn', 'log', 'debug', 'verbose'], logDestination: pino.destination({ dest: file, sync: true }) };
}
