// Fills `logs` with N synthetic rows, fast: the database generates them itself (INSERT ... SELECT over a
// sequence of numbers: a recursive CTE on SQLite, the SEQUENCE engine on MariaDB, a recursive CTE on MySQL,
// generate_series on PostgreSQL), so no row crosses the driver. The table's secondary indexes are dropped for
// the fill and built again afterwards from their own definitions (one sorted build each instead of ten
// B-trees updated at random for every row); on SQLite the journal is off during the fill.
// The shape follows the issue's measurement: 90 days, 2,000 users (a few heavy ones, as real traffic has),
// 40 models, 9 in 10 rows consume, ids in time order as the gateway writes them. The "random" values are a
// quadratic hash of the row number modulo a prime, the same on every database, so two runs fill the same rows.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const DAYS = 90;
export const USERS = 2000;
export const MODELS = 40;
/** Rows per INSERT ... SELECT (each its own transaction on the servers): progress and bounded undo logs. */
const CHUNK = 500_000;
const PRIME = 2147483647;

/** Dialect pieces: float division, truncation to an integer, string concatenation. */
function dialect(kind) {
  if (kind === 'mysql')
    return { real: (e) => `((${e}) * 1e0)`, int: (e) => `FLOOR(${e})`, cat: (...p) => `CONCAT(${p.join(', ')})`, q: (c) => `\`${c}\`` };
  if (kind === 'postgres')
    return { real: (e) => `((${e})::float8)`, int: (e) => `FLOOR(${e})::bigint`, cat: (...p) => p.join(' || '), q: (c) => `"${c}"` };
  return { real: (e) => `((${e}) * 1.0)`, int: (e) => `CAST(${e} AS INTEGER)`, cat: (...p) => p.join(' || '), q: (c) => `"${c}"` };
}

/**
 * The SELECT list of row `i` (0-based, a column of the row source) of n, in the column order of `COLUMNS`.
 * r(k) is the k-th pseudo-random fraction of the row: ((i+1)·m_k mod p)² + k mod p, over p.
 */
function rowSelect(kind, n, now, baseId) {
  const d = dialect(kind);
  const MULTIPLIERS = [48271, 69621, 40692, 16807, 39373, 62089911, 950706376, 1343714438, 630360016];
  const r = (k) => {
    const v = `(((i + 1) * ${MULTIPLIERS[k]}) % ${PRIME})`;
    return `(${d.real(`(${v} * ${v} + ${k}) % ${PRIME}`)} / ${PRIME})`;
  };
  const user = `(1 + ${d.int(`${USERS} * ${r(0)} * ${r(0)} * ${r(0)}`)})`;
  const model = d.int(`${MODELS} * ${r(1)} * ${r(1)}`);
  const prompt = d.int(`${r(3)} * 2000`);
  const completion = d.int(`${r(4)} * 500`);
  const span = DAYS * 86_400;
  const kind5 = d.int(`${r(5)} * 4`);
  return {
    id: `${baseId} + i + 1`,
    user_id: user,
    created_at: `${now - span} + ${d.int(`i * ${span}.0 / ${n}`)}`,
    // 9 in 10 consume (2), the rest spread over 1, 3, 4 and 5.
    type: `CASE WHEN ${r(2)} < 0.9 THEN 2 WHEN ${kind5} = 0 THEN 1 ELSE ${kind5} + 2 END`,
    content: `''`,
    username: d.cat(`'user-'`, user),
    token_name: d.cat(`'token-'`, user, `'-'`, d.int(`${r(6)} * 3`)),
    model_name: d.cat(`'model-'`, model),
    quota: `${prompt} + ${completion} * 2`,
    prompt_tokens: prompt,
    completion_tokens: completion,
    use_time: d.int(`${r(7)} * 30`),
    is_stream: `CASE WHEN ${r(8)} < 0.5 THEN 1 ELSE 0 END`,
    channel_id: `1 + ${model} % 20`,
    token_id: `${user} * 3 + ${d.int(`${r(6)} * 3`)}`,
    group: `CASE ${user} % 3 WHEN 0 THEN 'default' WHEN 1 THEN 'vip' ELSE 'svip' END`,
    ip: `'127.0.0.1'`,
    request_id: d.cat(`'bench-'`, 'i'),
    other: `'{}'`,
  };
}

function insertSql(kind, n, now, baseId, source) {
  const d = dialect(kind);
  const select = rowSelect(kind, n, now, baseId);
  const columns = Object.keys(select);
  return `INSERT INTO logs (${columns.map(d.q).join(', ')}) SELECT ${columns.map((c) => select[c]).join(', ')} FROM ${source}`;
}

/** Inserts n rows; `progress(done)` is called after each chunk. Returns the rows per second (indexes included). */
export async function fillLogs({ kind, sqlitePath, dsn }, n, now, progress = () => {}) {
  const started = performance.now();
  if (kind === 'sqlite') {
    const Database = require('better-sqlite3');
    const db = new Database(sqlitePath);
    db.pragma('busy_timeout = 30000');
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -1048576');
    db.pragma('temp_store = MEMORY');
    const baseId = Number(db.prepare('SELECT COALESCE(MAX(id), 0) AS n FROM logs').get().n);
    const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'logs' AND sql IS NOT NULL").all();
    for (const index of indexes) db.exec(`DROP INDEX "${index.name}"`);
    for (let start = 0; start < n; start += CHUNK) {
      const end = Math.min(n, start + CHUNK);
      const source = `(WITH RECURSIVE seq(i) AS (SELECT ${start} UNION ALL SELECT i + 1 FROM seq WHERE i < ${end - 1}) SELECT i FROM seq)`;
      db.exec(`BEGIN; ${insertSql(kind, n, now, baseId, source)}; COMMIT`);
      progress(end);
    }
    for (const index of indexes) db.exec(index.sql);
    db.exec('ANALYZE');
    db.pragma('journal_mode = WAL');
    db.close();
  } else if (kind === 'mysql') {
    const mysql = require('mysql2/promise');
    const conn = await mysql.createConnection({ uri: dsn, supportBigNumbers: true, multipleStatements: false });
    const [[{ n: max }]] = await conn.query('SELECT COALESCE(MAX(id), 0) AS n FROM logs');
    const baseId = Number(max);
    const [rows] = await conn.query("SHOW INDEX FROM logs WHERE Key_name <> 'PRIMARY'");
    const indexes = new Map();
    for (const row of rows) {
      const index = indexes.get(row.Key_name) ?? indexes.set(row.Key_name, { unique: !row.Non_unique, columns: [] }).get(row.Key_name);
      index.columns[row.Seq_in_index - 1] = `\`${row.Column_name}\`${row.Sub_part ? `(${row.Sub_part})` : ''}`;
    }
    if (indexes.size) await conn.query(`ALTER TABLE logs ${[...indexes.keys()].map((name) => `DROP INDEX \`${name}\``).join(', ')}`);
    let sequence = true;
    await conn.query('SELECT 1 FROM seq_0_to_1 LIMIT 1').catch(() => (sequence = false));
    if (!sequence) await conn.query('SET SESSION cte_max_recursion_depth = 100000000').catch(() => undefined);
    for (let start = 0; start < n; start += CHUNK) {
      const end = Math.min(n, start + CHUNK);
      const source = sequence
        ? `(SELECT seq AS i FROM seq_${start}_to_${end - 1}) AS s`
        : `(WITH RECURSIVE s(i) AS (SELECT ${start} UNION ALL SELECT i + 1 FROM s WHERE i < ${end - 1}) SELECT i FROM s) AS s`;
      await conn.query(insertSql(kind, n, now, baseId, source));
      progress(end);
    }
    const add = [...indexes].map(([name, index]) => `ADD ${index.unique ? 'UNIQUE ' : ''}INDEX \`${name}\` (${index.columns.join(', ')})`);
    if (add.length) await conn.query(`ALTER TABLE logs ${add.join(', ')}`);
    await conn.query('ANALYZE TABLE logs');
    await conn.end();
  } else {
    const pg = require('pg');
    const client = new pg.Client({ connectionString: dsn });
    await client.connect();
    const baseId = Number((await client.query('SELECT COALESCE(MAX(id), 0) AS n FROM logs')).rows[0].n);
    const { rows: indexes } = await client.query(
      `SELECT i.indexname AS name, i.indexdef AS sql FROM pg_indexes i
       WHERE i.tablename = 'logs' AND i.schemaname = current_schema()
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
    );
    for (const index of indexes) await client.query(`DROP INDEX "${index.name}"`);
    for (let start = 0; start < n; start += CHUNK) {
      const end = Math.min(n, start + CHUNK);
      await client.query(insertSql(kind, n, now, baseId, `generate_series(${start}::bigint, ${end - 1}::bigint) AS s(i)`));
      progress(end);
    }
    for (const index of indexes) await client.query(index.sql);
    await client.query("SELECT setval(pg_get_serial_sequence('logs', 'id'), (SELECT MAX(id) FROM logs))");
    await client.query('ANALYZE logs');
    await client.end();
  }
  return n / ((performance.now() - started) / 1000);
}
