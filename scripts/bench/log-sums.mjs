// Sums the logs the hourly cursor does not cover yet into log_hourly and log_daily with a few GROUP BYs inside
// the database, and moves the cursor to the highest id: what the gateway's background aggregation does in
// small steps that yield to requests (about 2,000 ids/s on a 2-core machine at load 17, so 10 M rows take
// over an hour). The bench uses it with BENCH_LOG_BACKFILL=sql and on a kept database whose backfill was cut
// short; the gateway must not be running (its aggregator would race the cursor).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const DAY = 86_400;
const SUMMED = ['count', 'quota', 'prompt_tokens', 'completion_tokens'];

/**
 * The statements for logs with after < id <= upTo (upserts: a partial backfill may have started the same
 * buckets); `dims` limits them to some dimensions (the others stay without these logs).
 */
function statements(kind, after, upTo, dims) {
  const q = (name) => (kind === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const channel = `CAST(channel_id AS ${kind === 'mysql' ? 'CHAR' : 'TEXT'})`;
  const keys = [
    ['all', '0', "''"],
    ['user', 'user_id', "''"],
    ['username', '0', 'username'],
    ['token', '0', 'token_name'],
    ['model', '0', 'model_name'],
    ['channel', '0', channel],
    ['group', '0', q('group')],
  ];
  const list = [];
  for (const [dim, userId, name] of keys) {
    if (dims && !dims.includes(dim)) continue;
    const groupBy = [userId, name].filter((c) => c !== '0' && c !== "''");
    for (const [table, bucket, size] of [
      ['log_hourly', 'hour', 3600],
      ['log_daily', 'day', DAY],
    ]) {
      if (table === 'log_daily' && dim !== 'model' && dim !== 'username') continue;
      const at = `created_at - created_at % ${size}`;
      const conflict =
        kind === 'mysql'
          ? `ON DUPLICATE KEY UPDATE ${SUMMED.map((c) => `${q(c)} = ${q(c)} + VALUES(${q(c)})`).join(', ')}`
          : `ON CONFLICT (dim, user_id, name, ${q(bucket)}) DO UPDATE SET ${SUMMED.map((c) => `${q(c)} = ${table}.${q(c)} + excluded.${q(c)}`).join(', ')}`;
      list.push(
        `INSERT INTO ${table} (dim, user_id, name, ${SUMMED.map(q).join(', ')}, ${q(bucket)})
         SELECT '${dim}', ${userId}, ${name}, COUNT(*), SUM(quota), SUM(prompt_tokens), SUM(completion_tokens), ${at}
         FROM logs WHERE type = 2 AND id > ${after} AND id <= ${upTo} GROUP BY ${[...groupBy, at].join(', ')} ${conflict}`,
      );
    }
  }
  list.push(`UPDATE log_aggregate_cursors SET last_id = ${upTo} WHERE name = 'hourly'`);
  return list;
}

/** Sums what the cursor does not cover; returns { ids, seconds }. */
export async function sumLogsInSql({ kind, sqlitePath, dsn }, dims, fromId) {
  const started = performance.now();
  const run = await connect(kind, sqlitePath, dsn);
  try {
    const [cursor] = await run("SELECT last_id AS n FROM log_aggregate_cursors WHERE name = 'hourly'");
    // fromId: sum these dimensions from there on whatever the cursor says (a kept database summed in parts).
    const after = fromId ?? Number(cursor?.n ?? 0);
    if (!cursor) await run("INSERT INTO log_aggregate_cursors (name, last_id) VALUES ('hourly', 0)");
    const [{ n: highest }] = await run('SELECT MAX(id) AS n FROM logs');
    const upTo = Number(highest ?? 0);
    if (upTo > after) {
      // InnoDB's default REPEATABLE READ locks every row an INSERT ... SELECT reads (10 M locks, minutes per statement).
      if (kind === 'mysql') await run('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
      const texts = await hasTable(run, kind, 'log_series_text');
      await run(kind === 'mysql' ? 'START TRANSACTION' : 'BEGIN');
      for (const sql of statements(kind, after, upTo, dims)) await run(sql);
      // The dashboard's stored hour texts may hold any of the hours just summed into: all are invalidated, in
      // the same transaction, as the gateway's aggregator does for the hours it touches.
      if (texts) await run('UPDATE log_series_text SET gen = gen + 1, body = NULL');
      await run('COMMIT');
    }
    return { ids: upTo - after, seconds: (performance.now() - started) / 1000 };
  } finally {
    await run.close();
  }
}

/**
 * Fills an empty `quota_data` with what the dashboard export (DataExportEnabled) would have gathered from the
 * consume logs: per user, username, model and hour. `/api/data/self` and the admin's per-user view read it.
 * Returns { rows, seconds }, or undefined when it already holds the fill's rows (a kept database).
 */
export async function fillQuotaData({ kind, sqlitePath, dsn }) {
  const started = performance.now();
  const run = await connect(kind, sqlitePath, dsn);
  try {
    // The fill's users are user-1 … user-N; rows of the bench's own relay calls (another user) do not count.
    if ((await run("SELECT id FROM quota_data WHERE username LIKE 'user-%' LIMIT 1")).length) return undefined;
    if (kind === 'mysql') await run('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
    const hour = 'created_at - created_at % 3600';
    await run(
      `INSERT INTO quota_data (user_id, username, model_name, created_at, token_used, count, quota)
       SELECT user_id, username, model_name, ${hour}, SUM(prompt_tokens + completion_tokens), COUNT(*), SUM(quota)
       FROM logs WHERE type = 2 AND username LIKE 'user-%' GROUP BY user_id, username, model_name, ${hour}`,
    );
    const [{ n }] = await run('SELECT COUNT(*) AS n FROM quota_data');
    return { rows: Number(n), seconds: (performance.now() - started) / 1000 };
  } finally {
    await run.close();
  }
}

/** Whether the database has this table (a database migrated by an older build may not). */
async function hasTable(run, kind, name) {
  const sql =
    kind === 'sqlite'
      ? `SELECT name FROM sqlite_master WHERE type = 'table' AND name = '${name}'`
      : kind === 'mysql'
        ? `SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = '${name}'`
        : `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename = '${name}'`;
  return (await run(sql)).length > 0;
}

async function connect(kind, sqlitePath, dsn) {
  if (kind === 'sqlite') {
    const db = new (require('better-sqlite3'))(sqlitePath);
    db.pragma('busy_timeout = 30000');
    db.pragma('cache_size = -1048576');
    const run = async (sql) => {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all();
      statement.run();
      return [];
    };
    run.close = async () => db.close();
    return run;
  }
  if (kind === 'mysql') {
    const conn = await require('mysql2/promise').createConnection({ uri: dsn, supportBigNumbers: true });
    const run = async (sql) => {
      const [rows] = await conn.query(sql);
      return Array.isArray(rows) ? rows : [];
    };
    run.close = () => conn.end();
    return run;
  }
  const client = new (require('pg').Client)({ connectionString: dsn });
  await client.connect();
  const run = async (sql) => (await client.query(sql)).rows;
  run.close = () => client.end();
  return run;
}

// Standalone: node scripts/bench/log-sums.mjs <SQLite file | mysql://… | postgres://…> [dim,dim,… [fromId]]
if (import.meta.url === `file://${process.argv[1]}`) {
  const target = process.argv[2];
  const kind = /^mysql:/.test(target) ? 'mysql' : /^postgres(ql)?:/.test(target) ? 'postgres' : 'sqlite';
  const { ids, seconds } = await sumLogsInSql(
    { kind, sqlitePath: target, dsn: target },
    process.argv[3]?.split(','),
    process.argv[4] === undefined ? undefined : Number(process.argv[4]),
  );
  console.log(`summed ${ids.toLocaleString('en')} log ids in SQL in ${seconds.toFixed(1)} s`);
}
