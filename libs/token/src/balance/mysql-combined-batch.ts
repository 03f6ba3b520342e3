import { sqlLiteral as literal, sqlSum as sum, type TripPlan } from '@gw/database';
import { groupLiterals, groupsInTripOrder, settleSums } from './combined-batch.js';
import { OPEN, REFUNDED } from './reservation-states.js';

/** A MySQL ledger movement as the one-trip planner sees it (mysql-balance.ts attaches one to each movement). */
export type MysqlTrip =
  | { kind: 'reserve'; userId: number; tokenId: number; amount: number; requestId: string; owner: string; createdAt: number }
  | { kind: 'settle'; userId: number; tokenId: number; delta: number; actual: number; requestId: string }
  | { kind: 'release'; userId: number; tokenId: number; amount: number; requestId: string };

/** What each movement's `run` would have returned: a reserve that was made, a settle or refund that applied. */
export const RESERVED = 'ok';

/**
 * Fails the trip unless the statement before it matched exactly `rows` rows: 18446744073709551615 is the
 * largest BIGINT UNSIGNED, and adding 1 to it is an out-of-range error (1690) on MySQL and MariaDB in every
 * sql_mode. The error rolls the whole trip back and the group commit runs the batch statement by statement.
 * (The driver's FOUND_ROWS flag makes ROW_COUNT() count matched rows, changed or not.)
 */
function expectRows(rows: number): string {
  return `SELECT 18446744073709551615 + (ROW_COUNT() <> ${rows}) AS guard`;
}

/**
 * One group commit batch of the MySQL ledger as a few statements instead of one or two per movement: the
 * batch's movements of one kind for one user and token become one statement on the reservation rows and
 * one on the balances, each followed by a guard. Under load one user's requests fill whole batches, and
 * the server ran their ~50 multi-table UPDATEs one after another while holding that user's row locks.
 *
 * Why the outcome is one the movements could have had one by one: none of them has been answered (nothing
 * is answered before its commit), so any order is a valid one; the plan applies every refund and settle
 * first, then the reserves. Refunds and settles only need their reservation row to be open: the marking
 * statement matches only open rows and the guard demands all k of them. Reserves need each balance to
 * cover each amount after the ones before it: a balance that covers the SUM covers every prefix, and the
 * guard demands the debit matched; when it does not (some reserve would be refused), the trip fails and
 * the statement-by-statement path decides each reserve alone. The reserves' open rows are one multi-row
 * INSERT (no free slot: a slot saves round trips only to a reserve alone, and turning it into the open row
 * rewrites its primary key, a delete and an insert in the index on top of the slot's own insert); a
 * request id already in the table is a duplicate-key error, which fails the trip like a guard.
 * undefined: a value that cannot be a plain literal (the batch goes statement by statement).
 */
export function planMysqlBatch(trips: MysqlTrip[], now: number): TripPlan | undefined {
  const statements: string[] = [];
  // Refunds and settles before reserves (a valid order, see above), otherwise in order of arrival.
  const ordered = groupsInTripOrder(trips);
  for (const group of ordered) {
    const text = groupStatements(group, now);
    if (!text) return undefined;
    statements.push(...text);
  }
  return {
    statements,
    values: () => trips.map((trip) => (trip.kind === 'reserve' ? RESERVED : true)),
  };
}

function groupStatements(group: MysqlTrip[], now: number): string[] | undefined {
  const first = group[0]!;
  const literals = groupLiterals(group);
  if (!literals) return undefined;
  const { user, token, withToken, inIds } = literals;
  const balanceRows = withToken ? 2 : 1;

  if (first.kind === 'settle') {
    const sums = settleSums(group as Extract<MysqlTrip, { kind: 'settle' }>[]);
    if (!sums) return undefined;
    const { delta, actual, charged } = sums;
    return [
      `UPDATE quota_reservations SET charged = ${charged} WHERE ${inIds} AND charged = ${OPEN}`,
      expectRows(group.length),
      withToken
        ? `UPDATE users u, tokens t SET u.quota = u.quota - ${delta}, u.used_quota = u.used_quota + ${actual}, u.request_count = u.request_count + ${group.length}, t.remain_quota = t.remain_quota - ${delta}, t.used_quota = t.used_quota + ${delta} WHERE u.id = ${user} AND t.id = ${token}`
        : `UPDATE users SET quota = quota - ${delta}, used_quota = used_quota + ${actual}, request_count = request_count + ${group.length} WHERE id = ${user}`,
      expectRows(balanceRows),
    ];
  }

  if (first.kind === 'release') {
    const amount = sum((group as Extract<MysqlTrip, { kind: 'release' }>[]).map((r) => r.amount));
    if (amount === undefined) return undefined;
    return [
      `UPDATE quota_reservations SET charged = ${REFUNDED} WHERE ${inIds} AND charged = ${OPEN}`,
      expectRows(group.length),
      withToken
        ? `UPDATE users u, tokens t SET u.quota = u.quota + ${amount}, t.remain_quota = t.remain_quota + ${amount}, t.used_quota = t.used_quota - ${amount} WHERE u.id = ${user} AND t.id = ${token}`
        : `UPDATE users SET quota = quota + ${amount} WHERE id = ${user}`,
      expectRows(balanceRows),
    ];
  }

  const reserves = group as Extract<MysqlTrip, { kind: 'reserve' }>[];
  const amount = sum(reserves.map((r) => r.amount));
  const created = literal(now);
  const rows = reserves.map((r) => {
    const values = [literal(r.requestId), user, withToken ? token : '0', literal(r.amount), String(OPEN), literal(r.owner), created];
    return values.includes(undefined) ? undefined : `(${values.join(', ')})`;
  });
  if (amount === undefined || rows.includes(undefined)) return undefined;
  return [
    withToken
      ? `UPDATE users u, tokens t SET u.quota = u.quota - ${amount}, t.remain_quota = t.remain_quota - ${amount}, t.used_quota = t.used_quota + ${amount} WHERE u.id = ${user} AND t.id = ${token} AND u.quota >= ${amount} AND (t.unlimited_quota = 1 OR t.remain_quota >= ${amount})`
      : `UPDATE users SET quota = quota - ${amount} WHERE id = ${user} AND quota >= ${amount}`,
    expectRows(balanceRows),
    `INSERT INTO quota_reservations (request_id, user_id, token_id, amount, charged, owner, created_at) VALUES ${rows.join(', ')}`,
  ];
}
