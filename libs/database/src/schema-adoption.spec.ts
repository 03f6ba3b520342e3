import { afterEach, describe, expect, it } from 'vitest';
import { DataSource, EntitySchema } from 'typeorm';
import { adoptSchema, isForeignInstallation, SchemaMismatchError } from './schema-adoption.js';

const Widget = new EntitySchema<{ id: number; name: string; size: number; note: string | null }>({
  name: 'Widget',
  tableName: 'widgets',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment' },
    name: { type: 'varchar', length: 64, default: '' },
    size: { type: 'integer', default: 7 },
    note: { type: 'text', nullable: true },
  },
});

const quiet = { log: () => undefined, error: () => undefined } as never;
let ds: DataSource | undefined;

async function open(sql: string[]): Promise<DataSource> {
  ds = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: [Widget], synchronize: false });
  await ds.initialize();
  for (const statement of sql) await ds.query(statement);
  return ds;
}

afterEach(async () => {
  await ds?.destroy();
  ds = undefined;
});

describe('adoptSchema', () => {
  it("adds the columns an entity reads that an existing table lacks, with their defaults, and keeps the table's own", async () => {
    const source = await open([
      'CREATE TABLE widgets (id integer PRIMARY KEY AUTOINCREMENT, name text, legacy numeric)',
      "INSERT INTO widgets (name, legacy) VALUES ('old', 1)",
    ]);
    expect(await adoptSchema(source, quiet)).toEqual(['widgets.size', 'widgets.note']);
    const rows = await source.query('SELECT * FROM widgets');
    expect(rows).toEqual([{ id: 1, name: 'old', legacy: 1, size: 7, note: null }]);
    const columns = (await source.query('PRAGMA table_info(widgets)')) as { name: string; type: string }[];
    expect(columns.find((c) => c.name === 'name')?.type).toBe('TEXT');
    expect(await adoptSchema(source, quiet)).toEqual([]);
  });

  it('names what is missing in one clear error instead of failing on the first query', async () => {
    const source = await open([]);
    const error = await adoptSchema(source, quiet).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect((error as Error).message).toContain('table widgets');
  });
});

describe('isForeignInstallation', () => {
  it("recognises new-api's tables without our migrations table", async () => {
    const source = await open([
      'CREATE TABLE users (id integer)',
      'CREATE TABLE tokens (id integer)',
      'CREATE TABLE channels (id integer)',
      'CREATE TABLE options (key text)',
    ]);
    const runner = source.createQueryRunner();
    expect(await isForeignInstallation(runner)).toBe(true);
    await source.query('CREATE TABLE migrations (id integer)');
    expect(await isForeignInstallation(runner)).toBe(false);
    await runner.release();
  });

  it('is not fooled by an empty database', async () => {
    const runner = (await open([])).createQueryRunner();
    expect(await isForeignInstallation(runner)).toBe(false);
    await runner.release();
  });
});
