import { AsyncLocalStorage } from 'node:async_hooks';
import type { LoggerService, LogLevel } from '@nestjs/common';
import pino, { type DestinationStream, type Logger as Pino } from 'pino';
import type { OpsConfig } from '@gw/core';
import { scrubSecrets } from './scrub.js';

/** The request a log line belongs to (console requests run inside it; see requestLogging). */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

type PinoLevel = OpsConfig['log']['level'];

/** Nest's level list (as given to NestFactory) mapped to the most verbose pino level it allows. */
export function levelFromNest(levels: false | LogLevel[]): PinoLevel {
  if (levels === false || levels.length === 0) return 'silent';
  const order: [LogLevel, PinoLevel][] = [
    ['verbose', 'trace'],
    ['debug', 'debug'],
    ['log', 'info'],
    ['warn', 'warn'],
    ['error', 'error'],
    ['fatal', 'fatal'],
  ];
  for (const [nest, level] of order) if (levels.includes(nest)) return level;
  return 'info';
}

function prettyStream(): DestinationStream | undefined {
  try {
    // Development only (devDependency); a production install without it falls back to JSON.
    return pino.transport({ target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } });
  } catch {
    return undefined;
  }
}

/**
 * The process's root logger: JSON lines (or pino-pretty in development), ISO times, the level from
 * LOG_LEVEL, the current request id when there is one, and every message and string field passed
 * through the secret scrubber.
 */
export function createRootLogger(log: OpsConfig['log'], destination?: DestinationStream): Pino {
  const stream = destination ?? (log.pretty ? prettyStream() : undefined) ?? pino.destination({ fd: 1, sync: false });
  return pino(
    {
      level: log.level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log(object) {
          for (const [name, value] of Object.entries(object)) if (typeof value === 'string') object[name] = scrubSecrets(value);
          return object;
        },
      },
      mixin(merge) {
        // Access lines (they carry `res`) already have the id bound by pino-http.
        const context = requestContext.getStore();
        return context && !('res' in merge) ? { req_id: context.requestId } : {};
      },
      hooks: {
        logMethod(args, method) {
          for (let i = 0; i < args.length; i++) if (typeof args[i] === 'string') args[i] = scrubSecrets(args[i] as string);
          method.apply(this, args as Parameters<typeof method>);
        },
      },
      serializers: { err: pino.stdSerializers.err },
    },
    stream,
  );
}

function text(message: unknown): string {
  if (typeof message === 'string') return message;
  if (message instanceof Error) return message.message;
  try {
    return JSON.stringify(message);
  } catch {
    return String(message);
  }
}

/** Nest's LoggerService over pino: `new Logger('Relay').warn(...)` anywhere becomes one JSON line with `context`. */
export class GatewayLogger implements LoggerService {
  constructor(readonly pino: Pino) {}

  log(message: unknown, context?: string): void {
    this.write('info', message, context);
  }

  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }

  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }

  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }

  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  /** Nest passes (message, stack?, context?) or (message, context?). */
  error(message: unknown, ...rest: unknown[]): void {
    const context = typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    const stack = typeof rest[0] === 'string' ? rest[0] : message instanceof Error ? message.stack : undefined;
    if (!this.pino.isLevelEnabled('error')) return;
    this.pino.error(stack ? { context, stack: scrubSecrets(stack) } : { context }, text(message));
  }

  private write(level: 'info' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, context?: string): void {
    if (!this.pino.isLevelEnabled(level)) return;
    this.pino[level]({ context }, text(message));
  }
}
