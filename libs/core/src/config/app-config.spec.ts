import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './app-config.js';
import { parseDatabaseDsn } from './database-dsn.js';
import { ConfigError } from './env-reader.js';

const dataDir = () => mkdtempSync(join(tmpdir(), 'gw-config-'));

describe('loadConfig', () => {
  it('uses new-api defaults', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), SESSION_SECRET: 's' });
    expect(config.http.port).toBe(3000);
    expect(config.database.type).toBe('sqlite');
    expect(config.sync.frequencySeconds).toBe(60);
    expect(config.http.maxBodyBytes).toBe(128 * 1024 * 1024);
    expect(config.rateLimits.globalApi).toEqual({ enabled: true, limit: 180, duration: 180 });
    expect(config.rateLimits.critical).toEqual({ enabled: true, limit: 20, duration: 1200 });
    expect(config.node.isMaster).toBe(true);
    expect(config.http.timeouts).toEqual({ headersMs: 30_000, requestMs: 300_000, keepAliveMs: 5_000, idleMs: 600_000 });
    expect(config.workers).toBe(1);
    expect(config.http.backlog).toBe(4096);
  });

  it('reads UPDATE_CHECK_URL, none by default (the update check is off)', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), SESSION_SECRET: 's' }).updateCheckUrl).toBe('');
    const url = 'https://releases.example.com/latest.json';
    expect(loadConfig({ DATA_DIR: dataDir(), SESSION_SECRET: 's', UPDATE_CHECK_URL: url }).updateCheckUrl).toBe(url);
  });

  it('reads LISTEN_BACKLOG', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), SESSION_SECRET: 's', LISTEN_BACKLOG: '16384' }).http.backlog).toBe(16384);
  });

  it('reads WORKERS as a count or auto (one per usable core)', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), SESSION_SECRET: 's', WORKERS: '3' }).workers).toBe(3);
    expect(loadConfig({ DATA_DIR: dataDir(), SESSION_SECRET: 's', WORKERS: 'auto' }).workers).toBe(availableParallelism());
  });

  it.each([
    ['PORT', 'abc', /PORT: expected an integer/],
    ['PORT', '70000', /PORT: must be at most 65535/],
    ['SYNC_FREQUENCY', '0', /SYNC_FREQUENCY: must be at least 1/],
    ['MAX_REQUEST_BODY_MB', '-1', /MAX_REQUEST_BODY_MB/],
    ['CRYPTO_SECRET', 'random_string', /CRYPTO_SECRET/],
    ['FRONTEND_BASE_URL', 'console.example.com', /FRONTEND_BASE_URL: not a valid URL/],
    ['BATCH_UPDATE_ENABLED', 'sometimes', /BATCH_UPDATE_ENABLED: expected true or false/],
    ['REDIS_CONN_STRING', 'http://x', /REDIS_CONN_STRING/],
    ['SESSION_SECRET', 'random_string', /SESSION_SECRET/],
    ['SQL_DSN', 'nonsense', /SQL_DSN/],
    ['HTTP_HEADERS_TIMEOUT', '0', /HTTP_HEADERS_TIMEOUT: must be at least 1/],
    ['HTTP_REQUEST_TIMEOUT', '10', /HTTP_REQUEST_TIMEOUT: must be 0 or at least HTTP_HEADERS_TIMEOUT/],
    ['LISTEN_BACKLOG', '0', /LISTEN_BACKLOG: must be at least 1/],
    ['LISTEN_BACKLOG', 'lots', /LISTEN_BACKLOG: expected an integer/],
    ['WORKERS', '0', /WORKERS: must be at least 1/],
    ['WORKERS', 'many', /WORKERS: expected an integer/],
    ['UPDATE_CHECK_URL', 'ftp://example.com/latest', /UPDATE_CHECK_URL: expected a https: or http: URL/],
  ])('stops on a bad %s with one line naming it', (name, value, pattern) => {
    const load = () => loadConfig({ DATA_DIR: dataDir(), SESSION_SECRET: 's', NODE_TYPE: 'slave', [name]: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(pattern);
  });

  it('reads NODE_TYPE as new-api: `slave` is a slave, any other value a master', () => {
    const node = (value?: string) => loadConfig({ DATA_DIR: dataDir(), SESSION_SECRET: 's', NODE_TYPE: value }).node.isMaster;
    expect(node(undefined)).toBe(true);
    expect(node('master')).toBe(true);
    expect(node('leader')).toBe(true);
    expect(node('slave')).toBe(false);
  });

  it("takes Go's boolean spellings (strconv.ParseBool: t, F, TRUE, 0, ...)", () => {
    const batch = (value: string) =>
      loadConfig({ DATA_DIR: dataDir(), SESSION_SECRET: 's', BATCH_UPDATE_ENABLED: value }).jobs.batchUpdateEnabled;
    for (const yes of ['t', 'T', 'TRUE', 'True', '1']) expect(batch(yes), yes).toBe(true);
    for (const no of ['f', 'F', 'FALSE', 'False', '0']) expect(batch(no), no).toBe(false);
  });

  it('lets CRYPTO_SECRET alone sign sessions too (as new-api), so instances given only it share sessions', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), CRYPTO_SECRET: 'shared-crypto-secret' });
    expect(config.session).toEqual({ secret: 'shared-crypto-secret', cryptoSecret: 'shared-crypto-secret' });
    expect(loadConfig({ DATA_DIR: dataDir(), SESSION_SECRET: 'a', CRYPTO_SECRET: 'b' }).session).toEqual({
      secret: 'a',
      cryptoSecret: 'b',
    });
  });

  it("accepts any SQL_MAX_OPEN_CONNS new-api does: 0 (Go's no limit) and large values become the 1000 cap", () => {
    const pool = (value: string) => loadConfig({ DATA_DIR: dataDir(), SESSION_SECRET: 's', SQL_MAX_OPEN_CONNS: value }).database.poolSize;
    expect(pool('50')).toBe(50);
    expect(pool('0')).toBe(1000);
    expect(pool('-1')).toBe(1000);
    expect(pool('5000')).toBe(1000);
  });

  it('uses FRONTEND_BASE_URL on a slave only (new-api ignores it on the master), without a trailing slash', () => {
    const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir(), SESSION_SECRET: 's', ...env });
    expect(load({ NODE_TYPE: 'slave', FRONTEND_BASE_URL: 'https://console.example.com/' }).console.frontendBaseUrl).toBe(
      'https://console.example.com',
    );
    expect(load({ FRONTEND_BASE_URL: 'https://console.example.com' }).console.frontendBaseUrl).toBeUndefined();
    expect(load({ NODE_TYPE: 'slave' }).console.frontendBaseUrl).toBeUndefined();
  });

  it('generates a session secret once and keeps it beside the database', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir, SQLITE_PATH: join(dir, 'db.sqlite') });
    const second = loadConfig({ DATA_DIR: dir, SQLITE_PATH: join(dir, 'db.sqlite') });
    expect(first.session.secret).toHaveLength(43);
    expect(second.session.secret).toBe(first.session.secret);
    expect(readFileSync(join(dir, '.session_secret'), 'utf8')).toBe(first.session.secret);
  });
});

describe('parseDatabaseDsn', () => {
  it('reads every form new-api accepts', () => {
    expect(parseDatabaseDsn(undefined, '/d/one-api.db?_busy_timeout=30000')).toEqual({ type: 'sqlite', path: '/d/one-api.db' });
    expect(parseDatabaseDsn('local', '/d/x.db')).toMatchObject({ type: 'sqlite' });
    expect(parseDatabaseDsn('root:p%40ss@tcp(db.local:3307)/oneapi?parseTime=true', '')).toEqual({
      type: 'mysql',
      host: 'db.local',
      port: 3307,
      username: 'root',
      password: 'p@ss',
      database: 'oneapi',
    });
    expect(parseDatabaseDsn('root@tcp(127.0.0.1)/gw', '')).toMatchObject({ type: 'mysql', port: 3306, password: '', database: 'gw' });
    expect(parseDatabaseDsn('mysql://u:pw@h:3306/db', '')).toMatchObject({
      type: 'mysql',
      host: 'h',
      username: 'u',
      password: 'pw',
      database: 'db',
    });
    expect(parseDatabaseDsn('postgresql://u@h/db', '')).toMatchObject({ type: 'postgres', port: 5432, database: 'db' });
  });

  it("honours the DSN's TLS mode as new-api's drivers do (PostgreSQL sslmode, MySQL tls)", () => {
    const tls = (dsn: string) => parseDatabaseDsn(dsn, '').tls;
    expect(tls('postgres://u@h/db')).toBeUndefined();
    for (const mode of ['disable', 'allow', 'prefer']) expect(tls(`postgres://u@h/db?sslmode=${mode}`), mode).toBeUndefined();
    expect(tls('postgres://u@h/db?sslmode=require')).toEqual({ verifyCertificate: false, verifyHostname: false });
    expect(tls('postgresql://u@h/db?sslmode=verify-ca')).toEqual({ verifyCertificate: true, verifyHostname: false });
    expect(tls('postgres://u@h/db?sslmode=verify-full')).toEqual({ verifyCertificate: true, verifyHostname: true });
    const ca = join(dataDir(), 'root.crt');
    writeFileSync(ca, 'pem');
    expect(tls(`postgres://u@h/db?sslmode=require&sslrootcert=${ca}`)).toEqual({
      verifyCertificate: true,
      verifyHostname: false,
      caFile: ca,
    });
    expect(() => tls('postgres://u@h/db?sslmode=verify-full&sslrootcert=/nowhere/root.crt')).toThrow(/SQL_DSN: sslrootcert/);
    expect(() => tls('postgres://u@h/db?sslmode=strict')).toThrow(/SQL_DSN: unknown sslmode/);

    expect(tls('u:p@tcp(h:3306)/db?charset=utf8mb4&parseTime=True&loc=Local')).toBeUndefined();
    expect(tls('u:p@tcp(h:3306)/db?tls=true')).toEqual({ verifyCertificate: true, verifyHostname: true });
    expect(tls('u:p@tcp(h:3306)/db?parseTime=true&tls=skip-verify')).toEqual({ verifyCertificate: false, verifyHostname: false });
    expect(tls('u:p@tcp(h:3306)/db?tls=preferred')).toBeUndefined();
    expect(tls('mysql://u@h:3306/db?tls=true')).toEqual({ verifyCertificate: true, verifyHostname: true });
    expect(() => tls('u:p@tcp(h:3306)/db?tls=custom')).toThrow(/SQL_DSN: unknown tls/);
  });

  it('refuses a DSN without a database name', () => {
    expect(() => parseDatabaseDsn('mysql://u@h:3306/', '')).toThrow(/database name/);
    expect(() => parseDatabaseDsn('u@tcp(h:1)/', '')).toThrow(/database name/);
  });
});

describe('LOG_SQL_DSN', () => {
  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir(), SESSION_SECRET: 's', ...env });

  it('is the main database when unset, `local` or equal to SQL_DSN', () => {
    expect(load({}).logDatabase).toBeUndefined();
    expect(load({ LOG_SQL_DSN: 'local' }).logDatabase).toBeUndefined();
    expect(load({ SQL_DSN: 'mysql://u@h:3306/gw', LOG_SQL_DSN: 'u@tcp(h:3306)/gw' }).logDatabase).toBeUndefined();
  });

  it("takes SQL_DSN's forms and sqlite:<path>", () => {
    expect(load({ LOG_SQL_DSN: 'postgres://u:p@pg:5433/logs' }).logDatabase).toMatchObject({
      type: 'postgres',
      host: 'pg',
      port: 5433,
      database: 'logs',
      poolSize: 20,
    });
    expect(load({ SQL_DSN: 'mysql://u@h:3306/gw', LOG_SQL_DSN: 'mysql://u@h:3306/gw_logs' }).logDatabase).toMatchObject({
      type: 'mysql',
      database: 'gw_logs',
    });
    expect(load({ LOG_SQL_DSN: 'sqlite:///var/lib/gw/logs.db' }).logDatabase).toMatchObject({
      type: 'sqlite',
      path: '/var/lib/gw/logs.db',
    });
    expect(load({ LOG_SQL_DSN: 'sqlite:logs.db?_busy_timeout=1' }).logDatabase?.path).toBe(join(process.cwd(), 'logs.db'));
  });

  it.each(['nonsense', 'mysql://u@h:3306/', 'sqlite:'])('stops on %s naming LOG_SQL_DSN', (value) => {
    expect(() => load({ LOG_SQL_DSN: value })).toThrow(/Invalid environment variable LOG_SQL_DSN/);
  });
});
