import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { jsonArray } from '@gw/core';
import { jsonRuns, seriesJsonSql } from './series-json.js';

describe('dashboard rows rendered as JSON by SQLite', () => {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE log_hourly (dim TEXT, user_id INTEGER, name TEXT, hour INTEGER, count INTEGER, quota INTEGER,
    prompt_tokens INTEGER, completion_tokens INTEGER)`);
  const names = ['b', 'Zeta', 'quo"te', 'back\\slash', 'line\nbreak', 'bell\u0007', '中文', '😀'];
  const insert = db.prepare('INSERT INTO log_hourly VALUES (?, 0, ?, ?, ?, ?, ?, ?)');
  names.forEach((name, i) => {
    insert.run('model', name, 7200 - (i % 2) * 3600, i + 1, 1000 * i, i, 2 * i);
    insert.run('username', name, 3600, 1, 1, 1, 1);
  });

  it('writes the bytes JSON.stringify writes for new-api rows, ordered by time, then name by code point', () => {
    const sql = seriesJsonSql('sqlite', { table: 'log_hourly', column: 'hour', offset: 0 }, 'model');
    const { j } = db.prepare(sql).get('model', 0, 10_800) as { j: string };
    const expected = names
      .map((name, i) => ({ name, i, hour: 7200 - (i % 2) * 3600 }))
      .sort((a, b) => a.hour - b.hour || (a.name < b.name ? -1 : 1))
      .map(({ name, i, hour }) => ({
        id: 0,
        user_id: 0,
        username: '',
        model_name: name,
        created_at: hour,
        token_used: 3 * i,
        count: i + 1,
        quota: 1000 * i,
      }));
    expect(jsonArray(jsonRuns([], [j])).text).toBe(JSON.stringify(expected));
    // Read as bytes: a Buffer of exactly that text's UTF-8 (what goes to the socket unchanged).
    const bytes = db
      .prepare(seriesJsonSql('sqlite', { table: 'log_hourly', column: 'hour', offset: 0 }, 'model', true))
      .get('model', 0, 10_800);
    expect(Buffer.isBuffer((bytes as { j: unknown }).j)).toBe(true);
    expect((bytes as { j: Buffer }).j.equals(Buffer.from(j, 'utf8'))).toBe(true);
  });

  it('dates per-day rows by the offset and keeps the time bounds', () => {
    const sql = seriesJsonSql('sqlite', { table: 'log_hourly', column: 'hour', offset: 43_200 }, 'username');
    const rows = JSON.parse(`[${(db.prepare(sql).get('username', 3600, 3601) as { j: string }).j}]`);
    expect(rows).toHaveLength(names.length);
    expect(rows[0]).toEqual({
      id: 0,
      user_id: 0,
      username: rows[0].username,
      model_name: '',
      created_at: 46_800,
      token_used: 2,
      count: 1,
      quota: 1,
    });
    expect((db.prepare(sql).get('username', 0, 3600) as { j: string | null }).j).toBeNull();
  });

  it('puts rows built in JS before and after the rendered runs, leaving empty runs out', () => {
    const array = (...args: Parameters<typeof jsonRuns>) => jsonArray(jsonRuns(...args)).text;
    expect(array([], [])).toBe('[]');
    expect(array([], ['{"a":1}', '{"a":2}'], [{ a: 3 }])).toBe('[{"a":1},{"a":2},{"a":3}]');
    expect(array([{ a: 0 }], ['{"a":1}'], [{ a: 3 }])).toBe('[{"a":0},{"a":1},{"a":3}]');
    expect(array([], [], [{ a: 3 }])).toBe('[{"a":3}]');
  });
});
