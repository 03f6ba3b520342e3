import type { DataSource } from 'typeorm';

export interface FillSpec {
  rows: number;
  /** created_at of row i (unix seconds). */
  createdAt: (i: number) => number;
  type?: (i: number) => number;
  userId?: (i: number) => number;
}

const COLUMNS = [
  'user_id',
  'username',
  'created_at',
  'type',
  'model_name',
  'token_name',
  'token_id',
  'channel_id',
  'group',
  'quota',
  'prompt_tokens',
  'completion_tokens',
  'request_id',
];
const PER_STATEMENT = 500;

/**
 * Fills `logs` fast with multi-row INSERTs (a test needs hundreds of thousands of rows in seconds, not the
 * minutes the entity path would take).
 */
export async function fillLogs(dataSource: DataSource, spec: FillSpec): Promise<void> {
  const kind = dataSource.options.type;
  const quote = kind === 'mysql' ? (c: string) => `\`${c}\`` : (c: string) => `"${c}"`;
  const head = `INSERT INTO logs (${COLUMNS.map(quote).join(', ')}) VALUES `;
  for (let start = 0; start < spec.rows; start += PER_STATEMENT) {
    const end = Math.min(spec.rows, start + PER_STATEMENT);
    const tuples: string[] = [];
    const params: unknown[] = [];
    for (let i = start; i < end; i++) {
      const userId = spec.userId?.(i) ?? 1 + (i % 50);
      const row = [
        userId,
        `user-${userId}`,
        spec.createdAt(i),
        spec.type?.(i) ?? 2,
        `model-${i % 8}`,
        `token-${i % 30}`,
        1 + (i % 30),
        1 + (i % 5),
        `group-${i % 3}`,
        1 + (i % 7),
        3,
        5,
        `fill-${i}`,
      ];
      const base = params.length;
      tuples.push(`(${row.map((_, j) => (kind === 'postgres' ? `$${base + j + 1}` : '?')).join(', ')})`);
      params.push(...row);
    }
    await dataSource.query(head + tuples.join(', '), params);
    // SQLite's driver is synchronous: without a turn of the event loop the gateway in this process could not
    // close its idle keep-alive sockets on time, and the next request would be written into a closing one.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
