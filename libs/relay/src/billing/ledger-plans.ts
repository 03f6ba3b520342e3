/**
 * The quota ledger's statements as plans: generators that yield one SQL step at a time and receive its
 * result (affected rows for a write, the row for a read). One plan runs inside one transaction; the
 * same plan runs synchronously on SQLite and awaited on MySQL/PostgreSQL, so the rules exist once.
 * Every debit is a conditional UPDATE checked by its affected rows: no read-then-write race.
 */
export interface LedgerStep {
  sql: string;
  params: Record<string, number | string>;
  read?: boolean;
}

export type LedgerRow = Record<string, unknown> | undefined;
export type StepResult = number | LedgerRow;

/** What a plan returns: commit or roll back, and the caller's value. */
export interface PlanResult<R> {
  commit: boolean;
  value: R;
}

export type Plan<R> = Generator<LedgerStep, PlanResult<R>, StepResult>;

export type ReserveOutcome = 'ok' | 'user_quota' | 'token_quota';

export interface SettleOutcome {
  /** The total actually charged for the request (reserved + extra taken, or reserved − refunded). */
  charged: number;
  /** True when the balance could not cover the full price and the charge was capped at what was left. */
  capped: boolean;
}

const USER_DEBIT = 'UPDATE users SET quota = quota - :n WHERE id = :id AND quota >= :n';
const TOKEN_DEBIT =
  'UPDATE tokens SET remain_quota = remain_quota - :n, used_quota = used_quota + :n WHERE id = :id AND (unlimited_quota = :on OR remain_quota >= :n)';
// `:on` is bound as 1 rather than written as a literal: new-api's column is BOOLEAN on PostgreSQL, where
// `boolean <> 0` is an error but a bound '1' reads as true (and as 1 in an integer column).
const USER_CREDIT = 'UPDATE users SET quota = quota + :n WHERE id = :id';
const TOKEN_CREDIT = 'UPDATE tokens SET remain_quota = remain_quota + :n, used_quota = used_quota - :n WHERE id = :id';
const USER_SETTLE_DEBIT =
  'UPDATE users SET quota = quota - :n, used_quota = used_quota + :q, request_count = request_count + 1 WHERE id = :id AND quota >= :n';
const USER_SETTLE_CREDIT =
  'UPDATE users SET quota = quota + :n, used_quota = used_quota + :q, request_count = request_count + 1 WHERE id = :id';
const USER_BALANCE = 'SELECT quota FROM users WHERE id = :id';
const TOKEN_BALANCE = 'SELECT remain_quota, unlimited_quota FROM tokens WHERE id = :id';

/** Pre-consume: the user first (new-api reports the wallet before the token), then the token (id 0 = playground, none). */
export function* reservePlan(userId: number, tokenId: number, amount: number): Plan<ReserveOutcome> {
  if ((yield { sql: USER_DEBIT, params: { n: amount, id: userId } }) !== 1) return { commit: false, value: 'user_quota' };
  if (tokenId > 0 && (yield { sql: TOKEN_DEBIT, params: { n: amount, id: tokenId, on: 1 } }) !== 1)
    return { commit: false, value: 'token_quota' };
  return { commit: true, value: 'ok' };
}

/** Refund of a reservation (the request failed). */
export function* releasePlan(userId: number, tokenId: number, amount: number): Plan<void> {
  yield { sql: USER_CREDIT, params: { n: amount, id: userId } };
  if (tokenId > 0) yield { sql: TOKEN_CREDIT, params: { n: amount, id: tokenId } };
  return { commit: true, value: undefined };
}

/**
 * Settle: applies actual − reserved. A refund always succeeds. An extra charge is taken in full when
 * both balances cover it; otherwise (`limit` given) it is capped at what the balances hold, so no
 * balance ever goes below zero. used_quota and request_count move in the same transaction.
 */
export function* settlePlan(
  userId: number,
  tokenId: number,
  reserved: number,
  actual: number,
  limit?: number,
): Plan<SettleOutcome | undefined> {
  const delta = limit === undefined ? actual - reserved : Math.min(actual - reserved, limit);
  const charged = reserved + delta;
  const capped = charged < actual;
  if (delta <= 0) {
    yield { sql: USER_SETTLE_CREDIT, params: { n: -delta, q: charged, id: userId } };
    if (tokenId > 0 && delta < 0) yield { sql: TOKEN_CREDIT, params: { n: -delta, id: tokenId } };
    return { commit: true, value: { charged, capped } };
  }
  if ((yield { sql: USER_SETTLE_DEBIT, params: { n: delta, q: charged, id: userId } }) !== 1) return { commit: false, value: undefined };
  if (tokenId > 0 && (yield { sql: TOKEN_DEBIT, params: { n: delta, id: tokenId, on: 1 } }) !== 1)
    return { commit: false, value: undefined };
  return { commit: true, value: { charged, capped } };
}

/** How much extra the balances can still cover (for a capped settle). */
export function* headroomPlan(userId: number, tokenId: number): Plan<number> {
  const user = (yield { sql: USER_BALANCE, params: { id: userId }, read: true }) as LedgerRow;
  let room = Math.max(0, Number(user?.quota ?? 0));
  if (tokenId > 0) {
    const token = (yield { sql: TOKEN_BALANCE, params: { id: tokenId }, read: true }) as LedgerRow;
    if (token && !Number(token.unlimited_quota)) room = Math.min(room, Math.max(0, Number(token.remain_quota ?? 0)));
  }
  return { commit: true, value: room };
}
