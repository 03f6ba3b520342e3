// `npm run bench:logs`: usage data at scale. Fills `logs` with BENCH_LOG_ROWS rows (default 10,000,000), generated
// inside the database (INSERT ... SELECT over a number sequence, indexes built after; niced), restarts the gateway (which aggregates the new rows in the background, as after
// an upgrade from new-api) and prints p50/p95 of the log list, stat and dashboard endpoints, then the relay's
// and /api/status's p95 while a cleanup deletes the older two thirds of the rows. `quota_data` (the per-user
// dashboard, /api/data/self) is summed from the filled logs, as the dashboard export would have gathered it.
//   BENCH_LOG_DB=sqlite (default) | mysql | postgres; BENCH_SQL_DSN=mysql://root@127.0.0.1:3306 (a server: the
//   bench creates and drops its own database); BENCH_LOG_SAMPLES (per endpoint, default 30);
//   BENCH_LOG_MAX_SECONDS bounds the cleanup phase (default 1800); BENCH_LOG_SEPARATE=1 puts the logs on that
//   database through LOG_SQL_DSN and the rest on a SQLite file of its own. Not part of `npm test`.
//   BENCH_LOG_EXISTING=<SQLite file | server DSN with its database> measures a database filled by an earlier run
//   (kept with BENCH_KEEP=1) as it is: no fill, no cleanup, nothing dropped; BENCH_LOG_ONLY=<regex> measures only
//   the endpoints whose name matches; BENCH_ENTRY runs another build's main.js (A/B on the same rows);
//   BENCH_LOG_CLEANUP=1 runs the cleanup phase on it too (it deletes the older two thirds of its rows);
//   BENCH_LOG_CLEANUP=0 skips it after a fill (so a kept fill keeps all its rows).
//   BENCH_LOG_BACKFILL=sql sums the filled rows with a few GROUP BYs in the database instead of waiting for the
//   gateway's background aggregation (which yields to requests: ~2,000 ids/s at load 17 on 2 cores).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { getPriority, loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { Agent, fetch as undiciFetch } from 'undici';
import { DAYS, fillLogs } from './bench/log-fill.mjs';
import { percentile, target } from './bench/load.mjs';
import { freePort, startFakeUpstream, startGateway, stop } from './bench/processes.mjs';
import { benchKey, prepareGateway } from './bench/setup.mjs';
import { fillQuotaData, sumLogsInSql } from './bench/log-sums.mjs';
import { GATEWAY_NODE_FLAGS, gatewayEnv } from './gateway-runtime.mjs';

const require = createRequire(import.meta.url);
const ROWS = Number(process.env.BENCH_LOG_ROWS ?? 10_000_000);
const KIND = process.env.BENCH_LOG_DB ?? 'sqlite';
const SAMPLES = Number(process.env.BENCH_LOG_SAMPLES ?? 30);
const SEPARATE = process.env.BENCH_LOG_SEPARATE === '1';
const MAX_CLEANUP_MS = Number(process.env.BENCH_LOG_MAX_SECONDS ?? 1800) * 1000;
/** Relay and /api/status calls before the cleanup: warm-up (not counted), then the idle samples. */
const IDLE_WARMUP = 200;
const IDLE_SAMPLES = 400;
const ROOT = new URL('..', import.meta.url).pathname;
const OUT = join(ROOT, 'node_modules/.cache/gw-bench-logs/dist');
const ENTRY = process.env.BENCH_ENTRY ?? join(OUT, 'apps/gateway/src/main.js');
const EXISTING = process.env.BENCH_LOG_EXISTING;
const ONLY = process.env.BENCH_LOG_ONLY ? new RegExp(process.env.BENCH_LOG_ONLY) : undefined;
const PASSWORD = 'bench-pass-123';
const DAY = 86_400;

function build() {
  if (existsSync(ENTRY) && (process.env.BENCH_REUSE_BUILD || process.env.BENCH_ENTRY)) return;
  console.log(`Building the server into ${OUT} ...`);
  rmSync(OUT, { recursive: true, force: true });
  const bin = (name) => join(ROOT, 'node_modules/.bin', name);
  try {
    execFileSync(bin('tsc'), ['-p', 'tsconfig.build.json', '--outDir', OUT], { cwd: ROOT, stdio: 'inherit' });
  } catch (error) {
    if (!existsSync(ENTRY)) throw error;
  }
  execFileSync(bin('tsc-alias'), ['-p', 'tsconfig.build.json', '--outDir', OUT], { cwd: ROOT, stdio: 'inherit' });
}

/** The database an earlier run filled and kept (BENCH_LOG_EXISTING): used as it is, never dropped. */
function existingDatabase(spec) {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-bench-logs-'));
  const drop = async () => rmSync(dataDir, { recursive: true, force: true });
  if (/^(mysql|postgres(ql)?):\/\//.test(spec)) return { kind: KIND, dsn: spec, env: { DATA_DIR: dataDir, SQL_DSN: spec }, drop };
  return { kind: 'sqlite', sqlitePath: spec, env: { DATA_DIR: dataDir, SQLITE_PATH: spec }, drop };
}

/** A database of our own: a temporary SQLite file, or a new database on the given server. */
async function createDatabase() {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-bench-logs-'));
  if (KIND === 'sqlite') {
    const path = join(dataDir, 'one-api.db');
    return {
      kind: 'sqlite',
      sqlitePath: path,
      env: { DATA_DIR: dataDir, SQLITE_PATH: path },
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const server = new URL(
    process.env.BENCH_SQL_DSN ?? (KIND === 'mysql' ? 'mysql://root@127.0.0.1:3306' : 'postgres://postgres@127.0.0.1:5432/postgres'),
  );
  const name = `gw_bench_logs_${Date.now().toString(36)}`;
  const admin = await adminConnection(server);
  await admin.run(
    KIND === 'mysql' ? `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci` : `CREATE DATABASE ${name}`,
  );
  await admin.close();
  const dsn = new URL(server.toString());
  dsn.pathname = `/${name}`;
  return {
    kind: KIND,
    dsn: dsn.toString(),
    env: { DATA_DIR: dataDir, SQL_DSN: dsn.toString() },
    drop: async () => {
      const conn = await adminConnection(server);
      await conn.run(KIND === 'mysql' ? `DROP DATABASE IF EXISTS \`${name}\`` : `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await conn.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function adminConnection(server) {
  if (KIND === 'mysql') {
    const conn = await require('mysql2/promise').createConnection({
      host: server.hostname,
      port: Number(server.port || 3306),
      user: decodeURIComponent(server.username),
      password: decodeURIComponent(server.password),
    });
    return { run: (sql) => conn.query(sql), close: () => conn.end() };
  }
  const client = new (require('pg').Client)({ connectionString: server.toString() });
  await client.connect();
  return { run: (sql) => client.query(sql), close: () => client.end() };
}

/** The root console session. */
async function login(url) {
  const res = await fetch(`${url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'root', password: PASSWORD }),
  });
  const body = await res.json();
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('session='));
  return { cookie: cookie.split(';')[0], 'New-Api-User': String(body.data.id) };
}

/** The time until the whole answer arrived (the client's own JSON.parse of a 30 MB answer is not the server's time). */
async function timedGet(url, path, headers) {
  const started = performance.now();
  const res = await fetch(url + path, { headers });
  const text = await res.text();
  const ms = performance.now() - started;
  const body = JSON.parse(text);
  if (!body.success) throw new Error(`${path}: ${text.slice(0, 300)}`);
  return { ms, body, bytes: text.length };
}

/** Waits until the hourly sums cover every filled row (the background backfill), reading the gateway's cursor. */
async function waitForBackfill(database, started) {
  const target = Number(await queryOne(database, 'SELECT MAX(id) AS n FROM logs'));
  const deadline = Date.now() + MAX_CLEANUP_MS;
  for (;;) {
    const covered = Number((await queryOne(database, "SELECT last_id AS n FROM log_aggregate_cursors WHERE name = 'hourly'")) ?? 0);
    if (covered >= target) return (performance.now() - started) / 1000;
    if (Date.now() > deadline) throw new Error(`the backfill did not finish in time (${covered} of ${target})`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

const fmt = (n) => `${n.toFixed(1)} ms`;
const line = (cells) => console.log(cells.map((c, i) => String(c).padEnd(i === 0 ? 44 : 12)).join(''));

build();
const db = EXISTING ? existingDatabase(EXISTING) : await createDatabase();
const upstream = await startFakeUpstream();
const port = await freePort();
// With BENCH_LOG_SEPARATE the filled database is the log database (LOG_SQL_DSN); the ledger gets its own file.
const dbEnv = SEPARATE
  ? {
      DATA_DIR: db.env.DATA_DIR,
      SQLITE_PATH: join(db.env.DATA_DIR, 'main.db'),
      LOG_SQL_DSN: db.kind === 'sqlite' ? `sqlite:${db.sqlitePath}` : db.dsn,
    }
  : db.env;
const env = gatewayEnv({
  ...process.env,
  ...dbEnv,
  PORT: String(port),
  HOST: '127.0.0.1',
  SESSION_SECRET: 'bench-session-secret-0123456789abcdef',
  GLOBAL_API_RATE_LIMIT: '100000000',
  CRITICAL_RATE_LIMIT: '100000000',
  SEARCH_RATE_LIMIT: '100000000',
  // The cleanup call answers after minutes: the server must not close its quiet connection (default 600 s).
  HTTP_IDLE_TIMEOUT: '0',
});
let gateway = EXISTING ? undefined : await startGateway(ENTRY, env, GATEWAY_NODE_FLAGS);
try {
  if (EXISTING) {
    // The fill's clock: its newest row is a second before the `now` it was filled with.
    const now = Number(await queryOne(db, 'SELECT MAX(created_at) AS n FROM logs')) + 1;
    const rows = Number(await queryOne(db, 'SELECT MAX(id) AS n FROM logs'));
    // A kept database whose background aggregation was cut short: the rest is summed in SQL first.
    const summed = await sumLogsInSql(db);
    if (summed.ids > 0) console.log(`Summed ${summed.ids.toLocaleString('en')} uncovered log ids in SQL in ${summed.seconds.toFixed(0)} s`);
    await fillQuotaDataOnce();
    // The bench channel still names the fake provider of the run that filled the database: this run's one.
    await runSql(db, 'UPDATE channels SET base_url = ? WHERE name = ?', [upstream.url, 'bench']);
    gateway = await startGateway(ENTRY, env, GATEWAY_NODE_FLAGS);
    console.log(
      `Measuring the existing database (${rows.toLocaleString('en')} log ids, newest row at ${new Date(now * 1000).toISOString()})`,
    );
    const headers = await login(gateway.url);
    await measure(headers, now, rows);
    if (process.env.BENCH_LOG_CLEANUP === '1') await cleanupImpact(headers, await benchKey(gateway.url), now);
  } else {
    await fillAndMeasure();
  }
} finally {
  if (gateway) await stop(gateway.child);
  await stop(upstream.child);
  if (!process.env.BENCH_KEEP || EXISTING) await db.drop();
}

/** quota_data as the dashboard export would have filled it from these logs (for /api/data/self). */
async function fillQuotaDataOnce() {
  // With BENCH_LOG_SEPARATE, quota_data stays on the main database (as in new-api), away from the logs.
  if (SEPARATE) {
    console.log('  quota_data: not filled (it lives on the main database, apart from the logs)');
    return;
  }
  const filled = await fillQuotaData(db);
  if (filled)
    console.log(`  quota_data: ${filled.rows.toLocaleString('en')} hourly rows summed from the logs in ${filled.seconds.toFixed(0)} s`);
}

async function fillAndMeasure() {
  const { key } = await prepareGateway(gateway.url, upstream.url);
  await stop(gateway.child);

  const now = Math.floor(Date.now() / 1000) - 120;
  console.log(
    `Filling ${ROWS.toLocaleString('en')} log rows on ${KIND}${SEPARATE ? ' (the log database; the main one is SQLite)' : ''} (generated in the database) ...`,
  );
  let shown = 0;
  // The fill runs niced (it competes with nobody's measurement); the measured phases below run at the normal
  // priority again (lowering the nice value back needs root; elsewhere the whole bench stays niced).
  const priority = getPriority();
  setPriority(Math.min(19, priority + 10));
  const rate = await fillLogs(db, ROWS, now, (done) => {
    if (done - shown >= ROWS / 10) {
      shown = done;
      process.stdout.write(`  ${Math.round((100 * done) / ROWS)} %\n`);
    }
  });
  try {
    setPriority(priority);
  } catch {
    console.log('  (cannot lower the nice value back without root: the measured phases run niced too)');
  }
  console.log(`  filled at ${Math.round(rate).toLocaleString('en')} rows/s`);
  if (db.sqlitePath) console.log(`  SQLite file: ${sqliteSpace(db.sqlitePath)}`);
  await fillQuotaDataOnce();

  if (process.env.BENCH_LOG_BACKFILL === 'sql') {
    const summed = await sumLogsInSql(db);
    console.log(`Summed in SQL (BENCH_LOG_BACKFILL=sql): ${summed.ids.toLocaleString('en')} log ids in ${summed.seconds.toFixed(0)} s`);
  }
  // Restarted as after an upgrade: the hourly sums cover none of these rows yet (unless summed in SQL above).
  const restarted = performance.now();
  gateway = await startGateway(ENTRY, env, GATEWAY_NODE_FLAGS);
  console.log(`Gateway restarted in ${((performance.now() - restarted) / 1000).toFixed(1)} s (answers while it aggregates)`);
  const headers = await login(gateway.url);
  const during = await timedGet(gateway.url, '/api/log/stat', headers);
  console.log(`  /api/log/stat while the backfill runs: ${fmt(during.ms)}`);
  const backfill = await waitForBackfill(db, restarted);
  const expected = Number(await queryOne(db, 'SELECT COALESCE(SUM(quota), 0) AS n FROM logs WHERE type = 2'));
  const stat = await timedGet(gateway.url, '/api/log/stat', headers);
  if (stat.body.data.quota !== expected) throw new Error(`stat says ${stat.body.data.quota}, the logs hold ${expected}`);
  console.log(`Background aggregation of ${ROWS.toLocaleString('en')} rows done ${backfill.toFixed(0)} s after start`);

  await measure(headers, now, ROWS);
  // BENCH_LOG_CLEANUP=0 keeps all the filled rows (a fill kept with BENCH_KEEP=1 for later measurements).
  if (process.env.BENCH_LOG_CLEANUP !== '0') await cleanupImpact(headers, key, now);
}

/** p50/p95 of every log list, stat and dashboard call (BENCH_LOG_ONLY: those whose name matches). */
async function measure(headers, now, rows) {
  const t = now;
  const endpoints = [
    ['list, no filter', '/api/log/?p=1&page_size=10'],
    ['list, type=2', '/api/log/?type=2&p=1&page_size=10'],
    ['list, deep page (p=100)', '/api/log/?p=100&page_size=100'],
    ['list, keyset page', `/api/log/?page_size=100&cursor=${t - 45 * DAY}_${Math.floor(rows / 2)}`],
    ['list, one user', '/api/log/?username=user-1500'],
    ['list, heavy user', '/api/log/?username=user-1'],
    ['list, one model (common)', '/api/log/?model_name=model-0'],
    ['list, one model (rare)', '/api/log/?model_name=model-39'],
    ['list, token', '/api/log/?token_name=token-700-1'],
    ['list, group', '/api/log/?group=vip'],
    ['list, channel', '/api/log/?channel=7'],
    ['list, 1 day range', `/api/log/?start_timestamp=${t - 2 * DAY}&end_timestamp=${t - DAY}`],
    ['stat, no filter', '/api/log/stat'],
    ['stat, 7 days', `/api/log/stat?start_timestamp=${t - 7 * DAY + 77}&end_timestamp=${t}`],
    ['stat, one user', '/api/log/stat?username=user-1'],
    ['stat, one model', '/api/log/stat?model_name=model-0'],
    ['stat, own rows', '/api/log/self/stat'],
    ['dashboard /api/data/ 7 days', `/api/data/?start_timestamp=${t - 7 * DAY}&end_timestamp=${t}`],
    ['dashboard /api/data/ 90 days', `/api/data/?start_timestamp=${t - DAYS * DAY}&end_timestamp=${t}`],
    ['dashboard /api/data/users 7 days', `/api/data/users?start_timestamp=${t - 7 * DAY}&end_timestamp=${t}`],
    ['dashboard /api/data/users 90 days', `/api/data/users?start_timestamp=${t - DAYS * DAY}&end_timestamp=${t}`],
    // The root session is user id 1, the fill's heaviest user: its own quota_data rows (new-api allows 30 days).
    ['dashboard /api/data/self 7 days', `/api/data/self?start_timestamp=${t - 7 * DAY}&end_timestamp=${t}`],
    ['dashboard /api/data/self 30 days', `/api/data/self?start_timestamp=${t - 30 * DAY}&end_timestamp=${t}`],
    ['dashboard /api/data/ one user 7 days', `/api/data/?username=user-1&start_timestamp=${t - 7 * DAY}&end_timestamp=${t}`],
    // What a console charting per day asks (new-api's default_time): whole days come from the daily sums.
    ['dashboard /api/data/ 7 days, per day', `/api/data/?start_timestamp=${t - 7 * DAY}&end_timestamp=${t}&default_time=day`],
    ['dashboard /api/data/ 90 days, per day', `/api/data/?start_timestamp=${t - DAYS * DAY}&end_timestamp=${t}&default_time=day`],
    ['dashboard /api/data/users 7 days, per day', `/api/data/users?start_timestamp=${t - 7 * DAY}&end_timestamp=${t}&default_time=day`],
    ['dashboard /api/data/users 90 days, per day', `/api/data/users?start_timestamp=${t - DAYS * DAY}&end_timestamp=${t}&default_time=day`],
  ];
  console.log('');
  console.log(
    `load average before: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  // `first` is the first call of each endpoint (cold: nothing of it read or stored yet by this gateway).
  line(['endpoint', 'first', 'p50', 'p95', 'total']);
  for (const [name, path] of endpoints) {
    if (ONLY && !ONLY.test(name)) continue;
    const first = await timedGet(gateway.url, path, headers);
    const samples = [];
    let total;
    // A slow answer (seconds) is sampled for at most a minute, and at least 5 times.
    const until = performance.now() + 60_000;
    for (let i = 0; i < SAMPLES && (i < 5 || performance.now() < until); i++) {
      const r = await timedGet(gateway.url, path, headers);
      samples.push(r.ms);
      total ??= r.body.data?.total_capped ? `>${r.body.data.total}` : (r.body.data?.total ?? '');
    }
    // A dashboard answer is a list: its length and size say what the time goes into.
    if (Array.isArray(first.body.data)) total = `${first.body.data.length} rows, ${(first.bytes / 2 ** 20).toFixed(1)} MB`;
    line([
      name,
      fmt(first.ms),
      fmt(percentile(samples, 50)),
      fmt(percentile(samples, 95)),
      total,
      `n=${samples.length} load ${loadavg()[0].toFixed(1)}`,
    ]);
  }
}

/** The relay's and the console's p95, idle and while a cleanup deletes the older two thirds of the rows. */
async function cleanupImpact(headers, key, t) {
  // The relay and the console, idle and then while a cleanup deletes the older two thirds of the rows.
  const relay = target(gateway.url, '/v1/chat/completions', key, 1);
  const idle = { relay: [], status: [] };
  // A freshly started gateway is still compiling its hot paths: its first calls would make "idle" look slow.
  for (let i = 0; i < IDLE_WARMUP; i++) {
    await relay.callJson();
    await timedGet(gateway.url, '/api/status', {});
  }
  for (let i = 0; i < IDLE_SAMPLES; i++) {
    idle.relay.push(await relay.callJson());
    idle.status.push((await timedGet(gateway.url, '/api/status', {})).ms);
  }
  const cutoff = t - Math.round((DAYS * DAY) / 3);
  // Counted apart from the call's answer, so a cleanup cut short by BENCH_LOG_MAX_SECONDS still reports its pace.
  const olderRows = () => queryOne(db, `SELECT COUNT(*) AS n FROM logs WHERE created_at < ${cutoff}`).then(Number);
  const toDelete = await olderRows();
  const busy = { relay: [], status: [] };
  const cleanupStarted = performance.now();
  let cleanup;
  // A cleanup of millions of rows answers after minutes: no headers timeout on this one call.
  const patient = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
  const deleting = undiciFetch(`${gateway.url}/api/log/?target_timestamp=${cutoff}`, { method: 'DELETE', headers, dispatcher: patient })
    .then((res) => res.json())
    .then((body) => (cleanup = body))
    .catch((error) => (cleanup = { data: 0, error: error.message }));
  while (!cleanup && performance.now() - cleanupStarted < MAX_CLEANUP_MS) {
    busy.relay.push(await relay.callJson());
    busy.status.push((await timedGet(gateway.url, '/api/status', {})).ms);
  }
  const cleanupSeconds = (performance.now() - cleanupStarted) / 1000;
  if (!cleanup) console.log(`(cleanup still running after ${MAX_CLEANUP_MS / 1000} s; measured until then)`);
  else await deleting;
  if (cleanup?.error) console.log(`(cleanup call failed: ${cleanup.error})`);
  await relay.close();
  console.log('');
  const deleted = cleanup && !cleanup.error ? cleanup.data : toDelete - (await olderRows());
  console.log(
    `Cleanup: ${deleted.toLocaleString('en')} of ${toDelete.toLocaleString('en')} rows in ${cleanupSeconds.toFixed(1)} s (${Math.round(deleted / cleanupSeconds).toLocaleString('en')} rows/s)`,
  );
  // The slowest /api/status during the cleanup is the longest the event loop stood still (plus one call's time).
  line(['measure', 'idle p50', 'idle p95', 'during p50', 'during p95', 'p95 ratio', 'idle max', 'during max']);
  for (const which of ['relay', 'status']) {
    const name = which === 'relay' ? 'relay (chat completion, c=1)' : 'GET /api/status';
    const ratio = percentile(busy[which], 95) / percentile(idle[which], 95);
    line([
      name,
      fmt(percentile(idle[which], 50)),
      fmt(percentile(idle[which], 95)),
      fmt(percentile(busy[which], 50)),
      fmt(percentile(busy[which], 95)),
      ratio.toFixed(2),
      // Not Math.max(...samples): a whole 10 M-row cleanup calls the relay a few hundred thousand times, more
      // arguments than the stack holds.
      fmt(percentile(idle[which], 100)),
      fmt(percentile(busy[which], 100)),
    ]);
  }
  console.log(
    `(${busy.relay.length} relay calls during the cleanup; load average now ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')})`,
  );
  if (db.sqlitePath) console.log(`SQLite file after the cleanup: ${sqliteSpace(db.sqlitePath)}`);
}

/**
 * The SQLite file and its WAL on disk, the free pages inside, and the biggest tables and indexes (dbstat), so a
 * growing file says where the growth is.
 */
function sqliteSpace(path) {
  const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
  const wal = existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0;
  const conn = new (require('better-sqlite3'))(path, { readonly: true, timeout: 30_000 });
  try {
    const free = conn.pragma('freelist_count', { simple: true }) * conn.pragma('page_size', { simple: true });
    let parts = '';
    try {
      const rows = conn.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 6').all();
      parts = `; largest: ${rows.map((r) => `${r.name} ${mb(r.bytes)}`).join(', ')}`;
    } catch {
      // dbstat is not compiled into every SQLite build.
    }
    return `${mb(statSync(path).size)} + WAL ${mb(wal)} (${mb(free)} free inside${parts})`;
  } finally {
    conn.close();
  }
}

/** Runs one statement with `?` parameters (a kept SQLite file or MySQL database; PostgreSQL numbers them). */
async function runSql(database, statement, params) {
  if (database.kind === 'sqlite') {
    const conn = new (require('better-sqlite3'))(database.sqlitePath, { timeout: 30_000 });
    try {
      conn.prepare(statement).run(...params);
    } finally {
      conn.close();
    }
    return;
  }
  if (database.kind === 'mysql') {
    const conn = await require('mysql2/promise').createConnection({ uri: database.dsn });
    await conn.query(statement, params);
    await conn.end();
    return;
  }
  const client = new (require('pg').Client)({ connectionString: database.dsn });
  await client.connect();
  let n = 0;
  await client.query(
    statement.replace(/\?/g, () => `$${++n}`),
    params,
  );
  await client.end();
}

/** The `n` column of a one-row query, read beside the gateway. */
async function queryOne(database, query) {
  if (database.kind === 'sqlite') {
    const Database = require('better-sqlite3');
    const conn = new Database(database.sqlitePath, { readonly: true, timeout: 30_000 });
    try {
      return conn.prepare(query).get()?.n;
    } finally {
      conn.close();
    }
  }
  if (database.kind === 'mysql') {
    const conn = await require('mysql2/promise').createConnection({ uri: database.dsn, supportBigNumbers: true, bigNumberStrings: false });
    const [[row]] = await conn.query(query);
    await conn.end();
    return row?.n;
  }
  const client = new (require('pg').Client)({ connectionString: database.dsn });
  await client.connect();
  const { rows } = await client.query(query);
  await client.end();
  return rows[0]?.n;
}
