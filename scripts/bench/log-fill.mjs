// Fills `logs` with N synthetic rows straight into the database, fast: multi-row INSERTs in big transactions
// (SQLite through better-sqlite3, MariaDB/MySQL through mysql2, PostgreSQL through pg). The shape follows the
// issue's measurement: 90 days, 2,000 users (a few heavy ones, as real traffic has), 40 models, 9 in 10 rows
// consume, ids in time order as the gateway writes them.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const COLUMNS = [
  'user_id',
  'created_at',
  'type',
  'content',
  'username',
  'token_name',
  'model_name',
  'quota',
  'prompt_tokens',
  'completion_tokens',
  'use_time',
  'is_stream',
  'channel_id',
  'token_id',
  'group',
  'ip',
  'request_id',
  'other',
];
const ROWS_PER_STATEMENT = 500;
const STATEMENTS_PER_TRANSACTION = 100;
export const DAYS = 90;
export const USERS = 2000;
export const MODELS = 40;

/** Deterministic pseudo-random numbers, so two runs fill the same rows. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Row i of n (the values in COLUMNS order); the first user ids are the first users of the fake console. */
function makeRow(i, n, now, rand) {
  const user = 1 + Math.floor(USERS * rand() ** 3);
  const model = Math.floor(MODELS * rand() ** 2);
  const type = rand() < 0.9 ? 2 : [1, 3, 4, 5][Math.floor(rand() * 4)];
  const prompt = Math.floor(rand() * 2000);
  const completion = Math.floor(rand() * 500);
  return [
    user,
    now - DAYS * 86_400 + Math.floor((i * DAYS * 86_400) / n),
    type,
    '',
    `user-${user}`,
    `token-${user}-${Math.floor(rand() * 3)}`,
    `model-${model}`,
    prompt + completion * 2,
    prompt,
    completion,
    Math.floor(rand() * 30),
    rand() < 0.5 ? 1 : 0,
    1 + (model % 20),
    user * 3 + Math.floor(rand() * 3),
    ['default', 'vip', 'svip'][user % 3],
    '127.0.0.1',
    `bench-${i}`,
    '{}',
  ];
}

function sql(kind, rows) {
  const quote = kind === 'mysql' ? (c) => `\`${c}\`` : (c) => `"${c}"`;
  let n = 0;
  const tuple = () => `(${COLUMNS.map(() => (kind === 'postgres' ? `$${++n}` : '?')).join(', ')})`;
  return `INSERT INTO logs (${COLUMNS.map(quote).join(', ')}) VALUES ${Array.from({ length: rows }, tuple).join(', ')}`;
}

/** Inserts n rows; `progress(done)` is called after each transaction. Returns the rows per second. */
export async function fillLogs({ kind, sqlitePath, dsn }, n, now, progress = () => {}) {
  const rand = random(23);
  const started = performance.now();
  const batches = function* () {
    for (let start = 0; start < n; start += ROWS_PER_STATEMENT) {
      const end = Math.min(n, start + ROWS_PER_STATEMENT);
      const params = [];
      for (let i = start; i < end; i++) params.push(...makeRow(i, n, now, rand));
      yield { rows: end - start, params, end };
    }
  };
  if (kind === 'sqlite') {
    const Database = require('better-sqlite3');
    const db = new Database(sqlitePath);
    db.pragma('busy_timeout = 30000');
    db.pragma('synchronous = OFF');
    // The ten indexes of `logs` are mostly in user, model or token order: a big cache keeps their pages resident.
    db.pragma('cache_size = -524288');
    const statements = new Map();
    const prepared = (rows) => statements.get(rows) ?? statements.set(rows, db.prepare(sql(kind, rows))).get(rows);
    const insertMany = db.transaction((list) => {
      for (const batch of list) prepared(batch.rows).run(...batch.params);
    });
    let list = [];
    for (const batch of batches()) {
      list.push(batch);
      if (list.length === STATEMENTS_PER_TRANSACTION) {
        insertMany(list);
        progress(batch.end);
        list = [];
      }
    }
    if (list.length) insertMany(list);
    db.close();
  } else if (kind === 'mysql') {
    const mysql = require('mysql2/promise');
    const conn = await mysql.createConnection({ uri: dsn, supportBigNumbers: true });
    let inTransaction = 0;
    await conn.query('START TRANSACTION');
    for (const batch of batches()) {
      await conn.query(sql(kind, batch.rows), batch.params);
      if (++inTransaction === STATEMENTS_PER_TRANSACTION) {
        await conn.query('COMMIT');
        progress(batch.end);
        inTransaction = 0;
        await conn.query('START TRANSACTION');
      }
    }
    await conn.query('COMMIT');
    await conn.end();
  } else {
    const pg = require('pg');
    const client = new pg.Client({ connectionString: dsn });
    await client.connect();
    let inTransaction = 0;
    await client.query('BEGIN');
    for (const batch of batches()) {
      await client.query(sql(kind, batch.rows), batch.params);
      if (++inTransaction === STATEMENTS_PER_TRANSACTION) {
        await client.query('COMMIT');
        progress(batch.end);
        inTransaction = 0;
        await client.query('BEGIN');
      }
    }
    await client.query('COMMIT');
    await client.query('ANALYZE logs');
    await client.end();
  }
  return n / ((performance.now() - started) / 1000);
}
