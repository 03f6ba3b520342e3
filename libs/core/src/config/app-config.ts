import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseDatabaseDsn, parseLogDatabaseDsn, type DatabaseTarget } from './database-dsn.js';
import { ConfigError, EnvReader, type RawEnv } from './env-reader.js';

export interface RateLimitRule {
  enabled: boolean;
  limit: number;
  /** Window in seconds. */
  duration: number;
}

/** The HTTP server's own timeouts, in milliseconds (0 = none), set explicitly at boot rather than left to Node's defaults. */
export interface ServerTimeouts {
  /** Whole request head received (slowloris on headers). */
  headersMs: number;
  /** Whole request, head and body, received (slow uploads). */
  requestMs: number;
  /** An idle keep-alive connection between two requests. */
  keepAliveMs: number;
  /** No byte either way on a socket (a stalled client or a silent upstream with RELAY_TIMEOUT=0). */
  idleMs: number;
}

export interface AppConfig {
  version: string;
  http: {
    port: number;
    host: string;
    /** LISTEN_BACKLOG: connections the kernel queues before the process accepts them (capped by net.core.somaxconn). */
    backlog: number;
    maxBodyBytes: number;
    trustedProxies: string[];
    timeouts: ServerTimeouts;
  };
  dataDir: string;
  database: DatabaseTarget & { poolSize: number };
  /** LOG_SQL_DSN: the logs and their hourly sums on a database of their own; undefined = the main database. */
  logDatabase?: DatabaseTarget & { poolSize: number };
  /** `prefix` namespaces every key and pub/sub channel, so deployments (or test runs) can share one Redis. */
  redis?: { url: string; prefix: string };
  session: { secret: string; cryptoSecret: string };
  node: { isMaster: boolean; name: string };
  /** WORKERS: gateway processes on this machine (Node's cluster, sharing the port); 1 runs in this process. */
  workers: number;
  sync: { frequencySeconds: number };
  rateLimits: { globalApi: RateLimitRule; critical: RateLimitRule; search: RateLimitRule; web: RateLimitRule };
  relay: {
    timeoutSeconds: number;
    streamingTimeoutSeconds: number;
    connectTimeoutSeconds: number;
    forceStreamOption: boolean;
    /** DIFY_DEBUG: Dify's workflow and node events reach the client as reasoning lines (new-api's default). */
    difyDebug: boolean;
    azureDefaultApiVersion: string;
    maxResponseBytes: number;
    /** Upstream connections per origin (RELAY_MAX_CONNECTIONS_PER_ORIGIN); 0 = no limit, so streams never queue. */
    maxConnectionsPerOrigin: number;
    /** How long a stream may wait on a client that does not read before it is ended and its upstream released. */
    streamWriteIdleSeconds: number;
    /** Bytes a stream may hold for a slow client before it is ended. */
    streamMaxBufferedBytes: number;
    /** REALTIME_IDLE_TIMEOUT: a Realtime WebSocket session with no frame either way for this long is closed. */
    realtimeIdleSeconds: number;
  };
  jobs: {
    channelTestFrequencyMinutes: number;
    channelUpdateFrequencyMinutes: number;
    pollingIntervalSeconds: number;
    batchUpdateEnabled: boolean;
    batchUpdateIntervalSeconds: number;
    /** UPDATE_TASK: poll unfinished Midjourney/Suno/video tasks (master node only). */
    updateTask: boolean;
    /** TASK_QUERY_LIMIT: unfinished tasks read per polling pass. */
    taskQueryLimit: number;
    /** TASK_TIMEOUT_MINUTES: unfinished tasks older than this are failed and refunded (0 = never). */
    taskTimeoutMinutes: number;
    /** TASK_POLL_INTERVAL: seconds between polling passes (new-api: 15). */
    taskPollIntervalSeconds: number;
  };
  notify: { limitCount: number; limitDurationMinutes: number };
  console: {
    staticDir: string;
    remotes: Record<'admin' | 'user' | 'playground', string>;
    /**
     * FRONTEND_BASE_URL, on a slave node only (new-api ignores it on the master): the console is served there, and
     * this node answers its routes with a 301 to it instead of serving the console itself.
     */
    frontendBaseUrl?: string;
  };
  generateDefaultToken: boolean;
  errorLogEnabled: boolean;
  /** Cloudflare Turnstile siteverify endpoint (TURNSTILE_VERIFY_URL; tests point it at a local fake). */
  turnstileVerifyUrl: string;
  /** PASSWORD_HASH_COST: bcrypt cost of new password hashes (new-api's 10; each step doubles the work). */
  passwordHashCost: number;
  /**
   * UPDATE_CHECK_URL: the release feed (GitHub's "latest release" JSON) the console's update check reads; ''
   * (the default) turns the check off: this gateway publishes no feed, and another project's releases would
   * always look newer than its own version.
   */
  updateCheckUrl: string;
  /** Operations: metrics, API docs, logging and shutdown. */
  ops: OpsConfig;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface OpsConfig {
  /** `GET /metrics` answers only when enabled; with a token it also wants `Authorization: Bearer <token>`. */
  metrics: { enabled: boolean; token?: string };
  /** OpenAPI document and viewer at /api/docs. */
  docsEnabled: boolean;
  log: { level: (typeof LOG_LEVELS)[number]; pretty: boolean };
  /** How long a SIGTERM waits for requests in flight before the process exits anyway. */
  shutdownTimeoutSeconds: number;
}

/** Connections per pool at most: new-api's SQL_MAX_OPEN_CONNS default, also what its 0 (no limit) becomes. */
const MAX_POOL_SIZE = 1000;
const MB = 1024 * 1024;
/** Room for a burst of thousands of new connections (Linux's own somaxconn default since 5.4). */
const DEFAULT_LISTEN_BACKLOG = 4096;

/** VERSION (shown in /api/status and by --version); read alone so `--version` touches nothing else. */
export function versionOf(env: RawEnv = process.env): string {
  return new EnvReader(env).string('VERSION', 'v0.1.0');
}

/** Builds the one typed configuration object; nothing else in the app reads process.env. */
export function loadConfig(env: RawEnv = process.env): AppConfig {
  const read = new EnvReader(env);
  const dataDir = resolve(read.string('DATA_DIR', './data'));
  const sqlitePath = resolve(read.string('SQLITE_PATH', join(dataDir, 'one-api.db')));
  const database = parseDatabaseDsn(read.string('SQL_DSN'), sqlitePath);
  const logDatabase = parseLogDatabaseDsn(read.string('LOG_SQL_DSN'), database, (path) => resolve(path));
  const poolSize = readPoolSize(read);
  for (const name of ['SESSION_SECRET', 'CRYPTO_SECRET']) {
    if (read.string(name) === 'random_string') {
      throw new ConfigError(name, "the placeholder 'random_string' must be replaced by a real secret");
    }
  }
  // As new-api: either secret stands in for the other, so instances given only CRYPTO_SECRET share sessions.
  const sessionSecret = read.string('SESSION_SECRET') ?? read.string('CRYPTO_SECRET');
  const secret = sessionSecret ?? persistentSecret(database.type === 'sqlite' ? dirname(sqlitePath) : dataDir);
  const isMaster = read.string('NODE_TYPE') !== 'slave';

  return {
    version: versionOf(env),
    http: {
      port: read.int('PORT', 3000, { min: 0, max: 65535 }),
      host: read.string('HOST', '0.0.0.0'),
      // Node's default (511) overflowed when thousands of streams opened at once: the kernel dropped the
      // handshakes past it and clients waited seconds for SYN retries or gave up.
      backlog: read.int('LISTEN_BACKLOG', DEFAULT_LISTEN_BACKLOG, { min: 1, max: 65535 }),
      maxBodyBytes: read.int('MAX_REQUEST_BODY_MB', 128, { min: 1, max: 1024 }) * MB,
      trustedProxies: (read.string('TRUSTED_PROXIES', '') ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      timeouts: readServerTimeouts(read),
    },
    dataDir,
    database: { ...database, poolSize },
    logDatabase: logDatabase && { ...logDatabase, poolSize },
    redis: readRedis(read),
    session: { secret, cryptoSecret: read.string('CRYPTO_SECRET') ?? secret },
    node: {
      // new-api: every value but `slave` is a master node (`master`, unset, or anything else).
      isMaster,
      name: read.string('NODE_NAME', read.string('HOSTNAME', 'gateway')),
    },
    workers: readWorkers(read),
    sync: { frequencySeconds: read.int('SYNC_FREQUENCY', 60, { min: 1, max: 86400 }) },
    rateLimits: {
      globalApi: rule(read, 'GLOBAL_API_RATE_LIMIT', 180, 180),
      critical: rule(read, 'CRITICAL_RATE_LIMIT', 20, 1200),
      search: rule(read, 'SEARCH_RATE_LIMIT', 10, 60),
      web: rule(read, 'GLOBAL_WEB_RATE_LIMIT', 60, 180),
    },
    relay: {
      timeoutSeconds: read.int('RELAY_TIMEOUT', 0, { min: 0 }),
      streamingTimeoutSeconds: read.int('STREAMING_TIMEOUT', 300, { min: 1 }),
      connectTimeoutSeconds: read.int('RELAY_CONNECT_TIMEOUT', 10, { min: 1, max: 600 }),
      forceStreamOption: read.bool('FORCE_STREAM_OPTION', true),
      difyDebug: read.bool('DIFY_DEBUG', true),
      azureDefaultApiVersion: read.string('AZURE_DEFAULT_API_VERSION', '2025-04-01-preview'),
      maxResponseBytes: read.int('RELAY_MAX_RESPONSE_MB', 64, { min: 1, max: 4096 }) * MB,
      maxConnectionsPerOrigin: read.int('RELAY_MAX_CONNECTIONS_PER_ORIGIN', 0, { min: 0 }),
      streamWriteIdleSeconds: read.int('STREAM_WRITE_IDLE_TIMEOUT', 60, { min: 1, max: 3600 }),
      streamMaxBufferedBytes: read.int('STREAM_MAX_BUFFER_MB', 4, { min: 1, max: 1024 }) * MB,
      realtimeIdleSeconds: read.int('REALTIME_IDLE_TIMEOUT', 90, { min: 1, max: 86400 }),
    },
    jobs: {
      channelTestFrequencyMinutes: read.int('CHANNEL_TEST_FREQUENCY', 0, { min: 0 }),
      channelUpdateFrequencyMinutes: read.int('CHANNEL_UPDATE_FREQUENCY', 0, { min: 0 }),
      pollingIntervalSeconds: read.int('POLLING_INTERVAL', 0, { min: 0 }),
      batchUpdateEnabled: read.bool('BATCH_UPDATE_ENABLED', false),
      batchUpdateIntervalSeconds: read.int('BATCH_UPDATE_INTERVAL', 5, { min: 1 }),
      updateTask: read.bool('UPDATE_TASK', true),
      taskQueryLimit: read.int('TASK_QUERY_LIMIT', 1000, { min: 1, max: 100_000 }),
      taskTimeoutMinutes: read.int('TASK_TIMEOUT_MINUTES', 1440, { min: 0 }),
      taskPollIntervalSeconds: read.int('TASK_POLL_INTERVAL', 15, { min: 1, max: 3600 }),
    },
    notify: {
      limitCount: read.int('NOTIFY_LIMIT_COUNT', 2, { min: 0 }),
      limitDurationMinutes: read.int('NOTIFICATION_LIMIT_DURATION_MINUTE', 10, { min: 1 }),
    },
    console: {
      staticDir: resolve(read.string('CONSOLE_DIST_DIR', './frontends')),
      remotes: {
        admin: read.string('CONSOLE_REMOTE_ADMIN_URL', '/remotes/admin/mf-manifest.json'),
        user: read.string('CONSOLE_REMOTE_USER_URL', '/remotes/user/mf-manifest.json'),
        playground: read.string('CONSOLE_REMOTE_PLAYGROUND_URL', '/remotes/playground/mf-manifest.json'),
      },
      frontendBaseUrl: isMaster ? undefined : read.url('FRONTEND_BASE_URL', ['https:', 'http:'])?.replace(/\/+$/, ''),
    },
    generateDefaultToken: read.bool('GENERATE_DEFAULT_TOKEN', false),
    errorLogEnabled: read.bool('ERROR_LOG_ENABLED', false),
    turnstileVerifyUrl:
      read.url('TURNSTILE_VERIFY_URL', ['https:', 'http:']) ?? 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
    passwordHashCost: read.int('PASSWORD_HASH_COST', 10, { min: 4, max: 16 }),
    updateCheckUrl: read.url('UPDATE_CHECK_URL', ['https:', 'http:']) ?? '',
    ops: readOps(read),
  };
}

function readOps(read: EnvReader): OpsConfig {
  const token = read.string('METRICS_TOKEN');
  const development = read.string('NODE_ENV', 'production') === 'development';
  return {
    // A token alone switches metrics on: setting one and still getting 404 would surprise an operator.
    metrics: { enabled: read.bool('METRICS_ENABLED', Boolean(token)), token: token || undefined },
    docsEnabled: read.bool('API_DOCS_ENABLED', false),
    log: {
      level: read.oneOf('LOG_LEVEL', LOG_LEVELS, development ? 'debug' : 'info'),
      pretty: read.oneOf('LOG_FORMAT', ['json', 'pretty'] as const, development ? 'pretty' : 'json') === 'pretty',
    },
    shutdownTimeoutSeconds: read.int('SHUTDOWN_TIMEOUT', 30, { min: 1, max: 3600 }),
  };
}

/** Node's request timeout must not be shorter than its headers timeout (it would fire first and answer 408 to slow heads). */
function readServerTimeouts(read: EnvReader): ServerTimeouts {
  const headers = read.int('HTTP_HEADERS_TIMEOUT', 30, { min: 1, max: 3600 });
  const request = read.int('HTTP_REQUEST_TIMEOUT', 300, { min: 0, max: 86400 });
  if (request !== 0 && request < headers) {
    throw new ConfigError('HTTP_REQUEST_TIMEOUT', `must be 0 or at least HTTP_HEADERS_TIMEOUT (${headers}), got ${request}`);
  }
  return {
    headersMs: headers * 1000,
    requestMs: request * 1000,
    keepAliveMs: read.int('HTTP_KEEP_ALIVE_TIMEOUT', 5, { min: 1, max: 3600 }) * 1000,
    idleMs: read.int('HTTP_IDLE_TIMEOUT', 600, { min: 0, max: 86400 }) * 1000,
  };
}

function rule(read: EnvReader, name: string, limit: number, duration: number): RateLimitRule {
  return {
    enabled: read.bool(`${name}_ENABLE`, true),
    limit: read.int(name, limit, { min: 1 }),
    duration: read.int(`${name}_DURATION`, duration, { min: 1 }),
  };
}

/**
 * SQL_MAX_OPEN_CONNS: connections per database pool (20 by default: the gateway's queries are short and batched;
 * new-api's 1000 is only a ceiling). As in Go's database/sql, 0 or less means no limit, which is MAX_POOL_SIZE
 * here, and so is anything above it: an env file written for new-api still starts the gateway.
 */
function readPoolSize(read: EnvReader): number {
  const size = read.int('SQL_MAX_OPEN_CONNS', 20);
  return size <= 0 ? MAX_POOL_SIZE : Math.min(size, MAX_POOL_SIZE);
}

/** `auto` is one worker per core this process may use; a number is taken as given. */
function readWorkers(read: EnvReader): number {
  if (read.string('WORKERS')?.toLowerCase() === 'auto') return availableParallelism();
  return read.int('WORKERS', 1, { min: 1, max: 256 });
}

function readRedis(read: EnvReader): AppConfig['redis'] {
  const url = read.url('REDIS_CONN_STRING', ['redis:', 'rediss:']);
  return url ? { url, prefix: read.string('REDIS_KEY_PREFIX', 'gw:') } : undefined;
}

/**
 * Without SESSION_SECRET, a random secret is generated once and kept beside the data, so that
 * sessions survive a restart (new-api loses every session on restart in that case).
 */
function persistentSecret(dir: string): string {
  const file = join(dir, '.session_secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
