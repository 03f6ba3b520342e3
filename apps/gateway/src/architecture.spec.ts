import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..');

/** Every TypeScript source of the libs and apps (specs excluded: they build their own throw-away tables). */
function sources(): { path: string; text: string }[] {
  const files: { path: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(full);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts')) {
        files.push({ path: relative(ROOT, full).split(sep).join('/'), text: readFileSync(full, 'utf8') });
      }
    }
  };
  walk(join(ROOT, 'libs'));
  walk(join(ROOT, 'apps'));
  return files;
}

const BALANCE_COLUMNS = '(quota|used_quota|request_count|remain_quota)';
const BALANCE_PROPERTIES = '(quota|usedQuota|requestCount|remainQuota)';
/** Raw SQL (`UPDATE users SET quota = …`, `UPDATE users u, tokens t SET u.quota = …`) and TypeORM's query builder. */
const BALANCE_WRITES = [
  new RegExp(`UPDATE\\s+(users|tokens)\\b[^;'\`]{0,200}?\\bSET\\b[^;'\`]{0,400}?\\b(\\w+\\.)?${BALANCE_COLUMNS}\\s*=`, 'i'),
  new RegExp(`\\.update\\((UserEntity|TokenEntity)\\)[\\s\\S]{0,200}?\\.set\\(\\{[^}]*\\b${BALANCE_PROPERTIES}\\s*:`),
];
/** Where TypeORM's drivers keep their connections, and the SQLite driver itself. */
const DRIVER_REACHES = [
  /\bdatabaseConnection\b/,
  /\bdriver\s*(as\s+unknown\s+as\s+[^)]*\))?\s*\.\s*(pool|master)\b/,
  /\.driver\s+as\s+unknown/,
  /from\s+'better-sqlite3'/,
];

function writesBalances(text: string): boolean {
  return BALANCE_WRITES.some((pattern) => pattern.test(text));
}

function reachesDriver(text: string): boolean {
  return DRIVER_REACHES.some((pattern) => pattern.test(text));
}

describe('architecture: who may move balances and who may touch the database driver', () => {
  it('recognises the forms a balance write and a driver reach take (so the checks below can fail)', () => {
    expect(writesBalances("const X = 'UPDATE users SET quota = quota - :n, used_quota = used_quota + :n WHERE id = :id';")).toBe(true);
    expect(writesBalances("'UPDATE users u, tokens t SET u.quota = u.quota - ?, t.remain_quota = t.remain_quota - ?'")).toBe(true);
    expect(writesBalances('WITH t AS (UPDATE tokens SET remain_quota = remain_quota + $2 WHERE id = $4)')).toBe(true);
    expect(writesBalances(".update(UserEntity)\n  .set({ quota: () => 'quota + :award' })")).toBe(true);
    expect(writesBalances('.update(UserEntity)\n  .set({ status: 2 })')).toBe(false);
    expect(writesBalances("'UPDATE users SET aff_quota = aff_quota + 1, status = 1 WHERE id = 1'")).toBe(false);
    expect(reachesDriver('(dataSource.driver as unknown as { databaseConnection: Db }).databaseConnection')).toBe(true);
    expect(reachesDriver('const pool = dataSource.driver.pool;')).toBe(true);
    expect(reachesDriver("import Database from 'better-sqlite3';")).toBe(true);
    expect(reachesDriver("import { sqliteHandleOf } from '@gw/database';")).toBe(false);
  });

  it('only libs/user and libs/token write users.quota/used_quota/request_count and tokens.remain_quota/used_quota', () => {
    const offenders = sources()
      .filter((file) => !file.path.startsWith('libs/user/') && !file.path.startsWith('libs/token/'))
      .filter((file) => writesBalances(file.text))
      .map((file) => file.path);
    expect(offenders).toEqual([]);
  });

  it('only libs/database reaches into the SQLite, MySQL and PostgreSQL drivers', () => {
    const offenders = sources()
      .filter((file) => !file.path.startsWith('libs/database/'))
      .filter((file) => reachesDriver(file.text))
      .map((file) => file.path);
    expect(offenders).toEqual([]);
  });
});
