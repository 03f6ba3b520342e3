import { existsSync } from 'node:fs';
import { ConfigError } from './env-reader.js';

export type DatabaseType = 'sqlite' | 'mysql' | 'postgres';

export interface DatabaseTarget {
  type: DatabaseType;
  /** SQLite file path (sqlite only). */
  path?: string;
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  database?: string;
  /** TLS to the server, from the DSN's own parameters (PostgreSQL `sslmode`, MySQL `tls`); absent = plain TCP. */
  tls?: DatabaseTls;
}

export interface DatabaseTls {
  /** Check the server certificate's chain (libpq's verify-ca and verify-full, Go MySQL's tls=true). */
  verifyCertificate: boolean;
  /** Check that the certificate names the host (verify-full, tls=true); meaningful only with verifyCertificate. */
  verifyHostname: boolean;
  /** PEM file of the certificate authority to trust instead of the system's (PostgreSQL `sslrootcert`). */
  caFile?: string;
}

/** new-api's Go DSN form: user:pass@tcp(host:port)/db?params */
const GO_MYSQL_DSN = /^(?<user>[^:@/]*)(?::(?<pass>[^@]*))?@tcp\((?<host>[^:)]+)(?::(?<port>\d+))?\)\/(?<db>[^?]*)/;

/**
 * Reads SQL_DSN the way new-api does: empty or `local` means SQLite, `postgres://` means PostgreSQL,
 * and anything else is MySQL, either as a URL or in the Go driver's `user:pass@tcp(host:port)/db` form.
 */
export function parseDatabaseDsn(dsn: string | undefined, sqlitePath: string, variable = 'SQL_DSN'): DatabaseTarget {
  if (!dsn || dsn.startsWith('local')) return { type: 'sqlite', path: stripSqliteParams(sqlitePath) };

  if (/^postgres(ql)?:\/\//.test(dsn)) return fromUrl(dsn, 'postgres', 5432, variable);
  if (/^(mysql|mariadb):\/\//.test(dsn)) return fromUrl(dsn, 'mysql', 3306, variable);

  const match = GO_MYSQL_DSN.exec(dsn);
  if (!match?.groups) {
    throw new ConfigError(variable, 'expected mysql://user:pass@host:3306/db, user:pass@tcp(host:3306)/db or postgres://...');
  }
  const { user, pass, host, port, db } = match.groups;
  if (!db) throw new ConfigError(variable, 'the database name is missing');
  const query = dsn.indexOf('?');
  const params = new URLSearchParams(query === -1 ? '' : dsn.slice(query + 1));
  return {
    type: 'mysql',
    host,
    port: port ? Number(port) : 3306,
    username: decodeURIComponent(user ?? ''),
    password: decodeURIComponent(pass ?? ''),
    database: db,
    ...tlsOf('mysql', params, variable),
  };
}

function fromUrl(dsn: string, type: DatabaseType, defaultPort: number, variable: string): DatabaseTarget {
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    throw new ConfigError(variable, 'not a valid URL');
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database) throw new ConfigError(variable, 'the database name is missing');
  return {
    type,
    host: url.hostname,
    port: url.port ? Number(url.port) : defaultPort,
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database,
    ...tlsOf(type, url.searchParams, variable),
  };
}

/**
 * TLS asked for in the DSN, read as new-api's drivers read it, so a managed database's DSN (which requires TLS)
 * works unchanged. PostgreSQL `sslmode` (libpq/pgx): `require` encrypts without checking the certificate,
 * `verify-ca` checks its chain, `verify-full` also the host name, `sslrootcert` names the CA file;
 * `disable`, `allow` and `prefer` connect in plain TCP (Node's driver cannot fall back from TLS to plain, so the
 * two "try" modes keep the plain connection every server accepts unless it requires TLS: use `require` there).
 * MySQL `tls` (go-sql-driver): `true` checks the certificate and host, `skip-verify` only encrypts, `false` and
 * `preferred` connect in plain TCP.
 */
function tlsOf(type: DatabaseType, params: URLSearchParams, variable: string): { tls?: DatabaseTls } {
  if (type === 'postgres') {
    const mode = params.get('sslmode') ?? '';
    const caFile = params.get('sslrootcert') || undefined;
    if (caFile && !existsSync(caFile)) throw new ConfigError(variable, `sslrootcert file not found: ${caFile}`);
    switch (mode) {
      case '':
      case 'disable':
      case 'allow':
      case 'prefer':
        return {};
      case 'require':
        // libpq: with a root certificate present, require behaves as verify-ca.
        return { tls: { verifyCertificate: Boolean(caFile), verifyHostname: false, caFile } };
      case 'verify-ca':
        return { tls: { verifyCertificate: true, verifyHostname: false, caFile } };
      case 'verify-full':
        return { tls: { verifyCertificate: true, verifyHostname: true, caFile } };
      default:
        throw new ConfigError(variable, `unknown sslmode '${mode}' (disable, allow, prefer, require, verify-ca or verify-full)`);
    }
  }
  const mode = (params.get('tls') ?? '').toLowerCase();
  switch (mode) {
    case '':
    case 'false':
    case 'preferred':
      return {};
    case 'true':
      return { tls: { verifyCertificate: true, verifyHostname: true } };
    case 'skip-verify':
      return { tls: { verifyCertificate: false, verifyHostname: false } };
    default:
      throw new ConfigError(variable, `unknown tls '${mode}' (true, skip-verify, preferred or false)`);
  }
}

/**
 * LOG_SQL_DSN (new-api): the database of the logs and their hourly sums. Unset, or `local` (new-api's word for
 * "the SQLite file of SQL_DSN"), means the main database: undefined. Besides SQL_DSN's forms it takes
 * `sqlite:<path>` for a SQLite file of its own (relative paths from the working directory). A target equal to
 * the main database is the main database too (one connection pool, not two).
 */
export function parseLogDatabaseDsn(
  dsn: string | undefined,
  main: DatabaseTarget,
  resolvePath: (path: string) => string,
): DatabaseTarget | undefined {
  if (!dsn || dsn.startsWith('local')) return undefined;
  let target: DatabaseTarget;
  if (dsn.startsWith('sqlite:')) {
    const path = stripSqliteParams(dsn.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, ''));
    if (!path) throw new ConfigError('LOG_SQL_DSN', 'sqlite: needs a file path, e.g. sqlite:./data/logs.db');
    target = { type: 'sqlite', path: resolvePath(path) };
  } else target = parseDatabaseDsn(dsn, '', 'LOG_SQL_DSN');
  return sameDatabase(target, main) ? undefined : target;
}

function sameDatabase(a: DatabaseTarget, b: DatabaseTarget): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'sqlite') return a.path === b.path;
  return a.host === b.host && a.port === b.port && a.database === b.database;
}

/** new-api's default SQLITE_PATH carries Go driver parameters (`one-api.db?_busy_timeout=30000`). */
function stripSqliteParams(path: string): string {
  const index = path.indexOf('?');
  return index === -1 ? path : path.slice(0, index);
}
