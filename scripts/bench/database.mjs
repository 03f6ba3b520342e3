// The bench's database choice: BENCH_DB=sqlite|mysql|postgres (MariaDB counts as mysql), BENCH_REDIS=1.
// A server database is created fresh for the run and dropped afterwards; its server's CPU time is read
// from /proc (every mysqld/mariadbd or postgres process, backends included).
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuMs } from './processes.mjs';

const SERVER_COMMANDS = { mysql: ['mysqld', 'mariadbd'], postgres: ['postgres'] };

/** Server URLs (without a database); BENCH_MYSQL_URL / BENCH_POSTGRES_URL / BENCH_REDIS_URL override them. */
const MYSQL_URL = process.env.BENCH_MYSQL_URL ?? process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Returns { kind, label, env, serverCpuMs(), drop() } for the chosen database. */
export async function benchDatabase(dataDir) {
  const kind = process.env.BENCH_DB ?? 'sqlite';
  const redis = process.env.BENCH_REDIS === '1' ? { REDIS_CONN_STRING: REDIS_URL, REDIS_KEY_PREFIX: `gwbench:${Date.now()}:` } : {};
  const label = `${kind}${redis.REDIS_CONN_STRING ? ' + Redis' : ''}`;
  if (kind === 'sqlite') {
    return { kind, label, env: { SQLITE_PATH: join(dataDir, 'one-api.db'), ...redis }, serverCpuMs: () => NaN, drop: async () => {} };
  }
  if (kind !== 'mysql' && kind !== 'postgres') throw new Error(`BENCH_DB must be sqlite, mysql or postgres (got ${kind})`);
  const name = `gw_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = await adminConnection(kind);
  await admin.query(
    kind === 'mysql' ? `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci` : `CREATE DATABASE "${name}"`,
  );
  const dsn = new URL(kind === 'mysql' ? MYSQL_URL : POSTGRES_URL);
  dsn.pathname = `/${name}`;
  return {
    kind,
    label,
    env: { SQL_DSN: dsn.toString(), ...redis },
    serverCpuMs: () => serverCpuMs(SERVER_COMMANDS[kind]),
    drop: async () => {
      await admin.query(kind === 'mysql' ? `DROP DATABASE IF EXISTS \`${name}\`` : `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function adminConnection(kind) {
  if (kind === 'mysql') {
    const mysql = (await import('mysql2/promise')).default;
    const url = new URL(MYSQL_URL);
    return mysql.createConnection({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    });
  }
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  return client;
}

/**
 * CPU time so far of every process of the database server, keyed by pid (a backend that appears during
 * the run counts from zero). The server is shared with anything else using it at the same time.
 */
function serverCpuMs(commands) {
  const times = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (commands.includes(readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) times.set(entry, cpuMs(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return times;
}

/** CPU ms the server spent between two serverCpuMs() readings. */
export function serverCpuDelta(before, after) {
  if (!(after instanceof Map)) return NaN;
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
