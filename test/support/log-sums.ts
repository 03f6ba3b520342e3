import type { DataSource } from 'typeorm';

/** One dashboard row as the logs sum to it. */
export interface SummedRow {
  created_at: number;
  name: string;
  count: number;
  quota: number;
  token_used: number;
}

const HOUR = 3600;

/**
 * The dashboard rows the consume logs add up to, computed from the logs table itself: one row per
 * (when(hour), model or user name), in new-api's order (time, then name by code point). Hours before `from`
 * or from `to` on are left out.
 */
export async function sumConsumeLogs(
  dataSource: DataSource,
  column: 'model_name' | 'username',
  when: (hour: number) => number,
  from: number,
  to = Number.POSITIVE_INFINITY,
): Promise<SummedRow[]> {
  const logs: Record<string, unknown>[] = await dataSource.query(
    `SELECT ${column} AS name, created_at, quota, prompt_tokens, completion_tokens FROM logs WHERE type = 2`,
  );
  const sums = new Map<string, SummedRow>();
  for (const log of logs) {
    const createdAt = Number(log.created_at);
    const hour = createdAt - (createdAt % HOUR);
    if (hour < from || hour >= to) continue;
    const at = when(hour);
    const key = `${at}|${log.name}`;
    const row = sums.get(key) ?? { created_at: at, name: String(log.name), count: 0, quota: 0, token_used: 0 };
    row.count++;
    row.quota += Number(log.quota);
    row.token_used += Number(log.prompt_tokens) + Number(log.completion_tokens);
    sums.set(key, row);
  }
  return [...sums.values()].sort((a, b) => a.created_at - b.created_at || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
