import { sqlLiteral, sqlSum as sum, type TripPlan } from '@gw/database';
import { groupLiterals, groupsInTripOrder, settleSums } from './combined-batch.js';

/** A PostgreSQL ledger movement as the one-trip planner sees it (postgres-balance.ts attaches one to each). */
export type PostgresTrip =
  | { kind: 'reserve'; userId: number; tokenId: number; amount: number; requestId: string; owner: string; createdAt: number }
  | { kind: 'settle'; userId: number; tokenId: number; delta: number; actual: number; requestId: string }
  | { kind: 'release'; userId: number; tokenId: number; amount: number; requestId: string };

/** A settle's value, as its own statement returns it: the balances just after it (for the shortfall). */
export interface SettledRow {
  settled: number;
  quota: number;
  remain_quota: number | null;
  unlimited_quota: unknown;
}

interface PgResult {
  rows: Record<string, unknown>[];
}

/**
 * Fails the statement (division_by_zero, 22012) unless every condition holds: the error aborts the trip's
 * transaction, it is rolled back whole and the group commit runs the batch statement by statement. The
 * final SELECT of a statement is always evaluated, and its data-modifying CTEs always run to completion.
 */
function guard(conditions: string[]): string {
  return `1 / (CASE WHEN ${conditions.join(' AND ')} THEN 1 ELSE 0 END) AS guard`;
}

/**
 * One group commit batch of the PostgreSQL ledger as one statement per kind, user and token instead of one
 * per movement (the MySQL planner's rules, mysql-combined-batch.ts): data-modifying CTEs mark the batch's
 * reservation rows and move the summed amounts, and the statement's SELECT divides by zero unless exactly
 * the expected rows matched. Nothing of the batch is answered before its commit, so any order of its
 * movements is one they could have had: refunds and settles first (each needs only its row still open),
 * then reserves, whose balances must cover the SUM (which covers every prefix). A reserve the sum does not
 * fit (user or token short: today's token-short refusal of one movement included), a row not open, a
 * missing user or token: the guard fails, and statement by statement answers each movement exactly.
 * undefined: a value that cannot be a plain literal (the batch goes statement by statement).
 */
export function planPostgresBatch(trips: PostgresTrip[]): TripPlan | undefined {
  const ordered = groupsInTripOrder(trips);
  const statements: string[] = [];
  for (const group of ordered) {
    const text = groupStatement(group);
    if (!text) return undefined;
    statements.push(text);
  }
  return {
    statements,
    values: (results) => {
      const values = new Map<PostgresTrip, unknown>();
      for (const [i, group] of ordered.entries()) {
        if (group[0]!.kind !== 'settle') for (const trip of group) values.set(trip, true);
        else settledRows(group as Extract<PostgresTrip, { kind: 'settle' }>[], (results[i] as PgResult).rows[0]!, values);
      }
      return trips.map((trip) => values.get(trip));
    },
  };
}

/**
 * Each settle's balances as if the group's settles ran one by one in arrival order: the statement returns
 * the balances after all of them, and a settle is followed by the later ones' extras (`delta`).
 */
function settledRows(group: Extract<PostgresTrip, { kind: 'settle' }>[], after: Record<string, unknown>, values: Map<unknown, unknown>) {
  let quota = Number(after.quota);
  let remain = after.remain_quota == null ? null : Number(after.remain_quota);
  for (let i = group.length - 1; i >= 0; i--) {
    const row: SettledRow = { settled: 1, quota, remain_quota: remain, unlimited_quota: after.unlimited_quota };
    values.set(group[i]!, row);
    quota += group[i]!.delta;
    if (remain !== null) remain += group[i]!.delta;
  }
}

function groupStatement(group: PostgresTrip[]): string | undefined {
  const first = group[0]!;
  const literals = groupLiterals(group);
  if (!literals) return undefined;
  const { user, token, withToken, inIds } = literals;
  const n = group.length;
  const balancesMoved = withToken ? ['(SELECT count(*) FROM u) = 1', '(SELECT count(*) FROM t) = 1'] : ['(SELECT count(*) FROM u) = 1'];

  if (first.kind === 'settle') {
    const sums = settleSums(group as Extract<PostgresTrip, { kind: 'settle' }>[]);
    if (!sums) return undefined;
    const { delta, actual, charged } = sums;
    return [
      `WITH r AS (UPDATE quota_reservations SET charged = ${charged} WHERE ${inIds} AND charged = -1 RETURNING 1),`,
      `u AS (UPDATE users SET quota = quota - ${delta}, used_quota = used_quota + ${actual}, request_count = request_count + ${n} WHERE id = ${user} RETURNING quota)`,
      withToken
        ? `, t AS (UPDATE tokens SET remain_quota = remain_quota - ${delta}, used_quota = used_quota + ${delta} WHERE id = ${token} RETURNING remain_quota, unlimited_quota)`
        : '',
      ` SELECT (SELECT quota FROM u) AS quota, ${withToken ? '(SELECT remain_quota FROM t) AS remain_quota, (SELECT unlimited_quota FROM t) AS unlimited_quota' : 'NULL AS remain_quota, NULL AS unlimited_quota'},`,
      ` ${guard([`(SELECT count(*) FROM r) = ${n}`, ...balancesMoved])}`,
    ].join('');
  }

  if (first.kind === 'release') {
    const amount = sum((group as Extract<PostgresTrip, { kind: 'release' }>[]).map((r) => r.amount));
    if (amount === undefined) return undefined;
    return [
      `WITH r AS (UPDATE quota_reservations SET charged = -3 WHERE ${inIds} AND charged = -1 RETURNING 1),`,
      `u AS (UPDATE users SET quota = quota + ${amount} WHERE id = ${user} RETURNING 1)`,
      withToken
        ? `, t AS (UPDATE tokens SET remain_quota = remain_quota + ${amount}, used_quota = used_quota - ${amount} WHERE id = ${token} RETURNING 1)`
        : '',
      ` SELECT ${guard([`(SELECT count(*) FROM r) = ${n}`, ...balancesMoved])}`,
    ].join('');
  }

  const reserves = group as Extract<PostgresTrip, { kind: 'reserve' }>[];
  const amount = sum(reserves.map((r) => r.amount));
  const rows = reserves.map((r) => {
    const fields = [sqlLiteral(r.requestId), user, token, sqlLiteral(r.amount), '-1', sqlLiteral(r.owner), sqlLiteral(r.createdAt)];
    return fields.includes(undefined) ? undefined : `(${fields.join(', ')})`;
  });
  if (amount === undefined || rows.includes(undefined)) return undefined;
  return [
    `WITH u AS (UPDATE users SET quota = quota - ${amount} WHERE id = ${user} AND quota >= ${amount} RETURNING 1)`,
    // '1' takes the column's type: true in new-api's BOOLEAN column, 1 in an integer one.
    withToken
      ? `, t AS (UPDATE tokens SET remain_quota = remain_quota - ${amount}, used_quota = used_quota + ${amount} WHERE id = ${token} AND (unlimited_quota = '1' OR remain_quota >= ${amount}) RETURNING 1)`
      : '',
    `, r AS (INSERT INTO quota_reservations (request_id, user_id, token_id, amount, charged, owner, created_at) VALUES ${rows.join(', ')} RETURNING 1)`,
    ` SELECT ${guard([...balancesMoved, `(SELECT count(*) FROM r) = ${n}`])}`,
  ].join('');
}
