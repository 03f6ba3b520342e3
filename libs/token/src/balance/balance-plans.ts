/**
 * The quota ledger's statements as plans: generators that yield one SQL step at a time and receive its
 * result (affected rows for a write, the row for a read). One plan runs inside one transaction; the
 * same plan runs synchronously on SQLite and awaited on MySQL/PostgreSQL, so the rules exist once.
 * Every debit that may be refused is a conditional UPDATE checked by its affected rows: no
 * read-then-write race. The billing policy these plans implement is written down in docs/billing.md.
 */
import type { LedgerRow, Plan } from '@gw/database';
import { FREE_SLOT } from './mysql-reservation-slots.js';

export type ReserveOutcome = 'ok' | 'user_quota' | 'token_quota';

export interface SettleOutcome {
  /** The total charged for the request: always the full price (reserved + extra, or reserved − refund). */
  charged: number;
  /**
   * How far below zero the extra charge took the user's or the token's balance (0 when the balances
   * covered it): credit the gateway extended, to be paid back by the next top-up.
   */
  shortfall: number;
}

/**
 * The durable record of a reservation (see docs/billing.md): written with the reserve, marked with the
 * charge by the settle, removed by the refund. Without it (asynchronous tasks keep their own rows) the
 * plans only move balances.
 */
export interface ReservationKey {
  requestId: string;
  /** The instance holding the request (ledger_owners.id). */
  owner: string;
}

/**
 * The same three movements of a request's durable reservation, written for one server database in as few
 * round trips as possible (mysql-balance.ts, postgres-balance.ts); the plans below are the reference and
 * the SQLite path.
 */
export interface LeanLedger {
  reserve(userId: number, tokenId: number, amount: number, requestId: string, owner: string): Promise<ReserveOutcome>;
  settle(userId: number, tokenId: number, reserved: number, actual: number, requestId: string): Promise<SettleOutcome | undefined>;
  release(userId: number, tokenId: number, amount: number, requestId: string): Promise<boolean>;
}

const USER_DEBIT = 'UPDATE users SET quota = quota - :n WHERE id = :id AND quota >= :n';
const TOKEN_DEBIT =
  'UPDATE tokens SET remain_quota = remain_quota - :n, used_quota = used_quota + :n WHERE id = :id AND (unlimited_quota = :on OR remain_quota >= :n)';
// `:on` is bound as 1 rather than written as a literal: new-api's column is BOOLEAN on PostgreSQL, where
// `boolean <> 0` is an error but a bound '1' reads as true (and as 1 in an integer column).
const TOKEN_FORCE_DEBIT = 'UPDATE tokens SET remain_quota = remain_quota - :n, used_quota = used_quota + :n WHERE id = :id';
const USER_CREDIT = 'UPDATE users SET quota = quota + :n WHERE id = :id';
const TOKEN_CREDIT = 'UPDATE tokens SET remain_quota = remain_quota + :n, used_quota = used_quota - :n WHERE id = :id';
const USER_SETTLE_DEBIT =
  'UPDATE users SET quota = quota - :n, used_quota = used_quota + :q, request_count = request_count + 1 WHERE id = :id AND quota >= :n';
const USER_SETTLE_FORCE_DEBIT =
  'UPDATE users SET quota = quota - :n, used_quota = used_quota + :q, request_count = request_count + 1 WHERE id = :id';
const USER_SETTLE_CREDIT =
  'UPDATE users SET quota = quota + :n, used_quota = used_quota + :q, request_count = request_count + 1 WHERE id = :id';
const USER_BALANCE = 'SELECT quota FROM users WHERE id = :id';
const TOKEN_BALANCE = 'SELECT remain_quota, unlimited_quota FROM tokens WHERE id = :id';

export const RESERVATION_INSERT =
  'INSERT INTO quota_reservations (request_id, user_id, token_id, amount, charged, owner, created_at) VALUES (:r, :uid, :tid, :n, -1, :o, :t)';
/**
 * Only an open reservation (charged = -1) is settled or refunded: the one that matches wins, the other
 * finds it gone. (-3 is the server databases' refunded state, see reservation-states.ts.)
 */
const RESERVATION_SETTLE = 'UPDATE quota_reservations SET charged = :c WHERE request_id = :r AND charged = -1';
const RESERVATION_REFUND = 'DELETE FROM quota_reservations WHERE request_id = :r AND charged = -1';
/** Settled (≥ 0) or refunded (-3) rows: nothing left to do once the log rows are written. */
export const RESERVATION_FORGET_WHERE = '(charged >= 0 OR charged = -3)';

/**
 * Pre-consume: the user first (new-api reports the wallet before the token), then the token (id 0 =
 * playground, none), then the reservation row, all in one commit. A user or token already in debt is
 * refused by the conditional debits (`quota >= n` with n ≥ 0 fails on a negative balance).
 */
export function* reservePlan(userId: number, tokenId: number, amount: number, key?: ReservationKey): Plan<ReserveOutcome> {
  if ((yield { sql: USER_DEBIT, params: { n: amount, id: userId } }) !== 1) return { commit: false, value: 'user_quota' };
  if (tokenId > 0 && (yield { sql: TOKEN_DEBIT, params: { n: amount, id: tokenId, on: 1 } }) !== 1)
    return { commit: false, value: 'token_quota' };
  if (key) {
    yield {
      sql: RESERVATION_INSERT,
      params: { r: key.requestId, uid: userId, tid: tokenId, n: amount, o: key.owner, t: Math.floor(Date.now() / 1000) },
    };
  }
  return { commit: true, value: 'ok' };
}

/**
 * Refund of a reservation (the request failed, or its instance died before settling). With a request
 * id, only an open reservation is refunded, and only once: false when it was settled or refunded already.
 */
export function* releasePlan(userId: number, tokenId: number, amount: number, requestId?: string): Plan<boolean> {
  if (requestId !== undefined && (yield { sql: RESERVATION_REFUND, params: { r: requestId } }) !== 1)
    return { commit: false, value: false };
  if (amount !== 0) {
    yield { sql: USER_CREDIT, params: { n: amount, id: userId } };
    if (tokenId > 0) yield { sql: TOKEN_CREDIT, params: { n: amount, id: tokenId } };
  }
  return { commit: true, value: true };
}

/**
 * Settle: applies actual − reserved in full. A refund always succeeds. An extra charge is taken from
 * the balances when they cover it; when they do not, it is taken anyway (the client was served) and
 * the balance goes below zero by at most that extra: the shortfall, which the caller logs. A balance
 * below zero refuses every later reserve until a top-up. used_quota and request_count move in the
 * same transaction, and so does the reservation's mark (undefined: the reservation was no longer
 * open, nothing is charged twice).
 */
export function* settlePlan(
  userId: number,
  tokenId: number,
  reserved: number,
  actual: number,
  requestId?: string,
): Plan<SettleOutcome | undefined> {
  const delta = actual - reserved;
  let shortfall = 0;
  if (requestId !== undefined && (yield { sql: RESERVATION_SETTLE, params: { c: actual, r: requestId } }) !== 1)
    return { commit: false, value: undefined };
  if (delta <= 0) {
    yield { sql: USER_SETTLE_CREDIT, params: { n: -delta, q: actual, id: userId } };
    if (tokenId > 0 && delta < 0) yield { sql: TOKEN_CREDIT, params: { n: -delta, id: tokenId } };
    return { commit: true, value: { charged: actual, shortfall } };
  }
  if ((yield { sql: USER_SETTLE_DEBIT, params: { n: delta, q: actual, id: userId } }) !== 1) {
    yield { sql: USER_SETTLE_FORCE_DEBIT, params: { n: delta, q: actual, id: userId } };
    const user = (yield { sql: USER_BALANCE, params: { id: userId }, read: true }) as LedgerRow;
    shortfall = Math.min(delta, Math.max(0, -Number(user?.quota ?? 0)));
  }
  if (tokenId > 0 && (yield { sql: TOKEN_DEBIT, params: { n: delta, id: tokenId, on: 1 } }) !== 1) {
    yield { sql: TOKEN_FORCE_DEBIT, params: { n: delta, id: tokenId } };
    const token = (yield { sql: TOKEN_BALANCE, params: { id: tokenId }, read: true }) as LedgerRow;
    shortfall = Math.max(shortfall, Math.min(delta, Math.max(0, -Number(token?.remain_quota ?? 0))));
  }
  return { commit: true, value: { charged: actual, shortfall } };
}

/** The reservations are done with: their log rows are written (or they were refunded). */
export function* forgetReservationsPlan(requestIds: string[]): Plan<number> {
  let removed = 0;
  for (const r of requestIds) {
    removed += (yield {
      sql: `DELETE FROM quota_reservations WHERE request_id = :r AND ${RESERVATION_FORGET_WHERE}`,
      params: { r },
    }) as number;
  }
  return { commit: true, value: removed };
}

/**
 * The free reservation slots an instance left (MySQL/MariaDB, mysql-reservation-slots.ts: charged = -9,
 * holding no money); the recovery removes a stopped instance's.
 */
export function* dropFreeSlotsPlan(owner: string): Plan<number> {
  const removed = (yield {
    sql: `DELETE FROM quota_reservations WHERE owner = :o AND charged = ${FREE_SLOT}`,
    params: { o: owner },
  }) as number;
  return { commit: true, value: removed };
}

const USER_ADJUST = 'UPDATE users SET quota = quota - :n, used_quota = used_quota + :n WHERE id = :id';
const TOKEN_ADJUST = 'UPDATE tokens SET remain_quota = remain_quota - :n, used_quota = used_quota + :n WHERE id = :id';

/**
 * A later correction of a charge already taken (an asynchronous task settled at its real price): moves
 * `delta` (negative: a refund) from the balances to the used counters, unconditionally. The work was
 * delivered, so an extra charge may take a balance below zero, as a relay settle may.
 */
export function* adjustPlan(userId: number, tokenId: number, delta: number): Plan<void> {
  yield { sql: USER_ADJUST, params: { n: delta, id: userId } };
  if (tokenId > 0) yield { sql: TOKEN_ADJUST, params: { n: delta, id: tokenId } };
  return { commit: true, value: undefined };
}
