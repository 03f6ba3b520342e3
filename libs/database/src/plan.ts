/**
 * A transaction written once for every database: a generator that yields one SQL step at a time (named
 * parameters, `:name`) and receives its result (affected rows for a write, the row for a read). The same
 * plan runs synchronously on SQLite and awaited on MySQL/PostgreSQL (BatchedTransactions.run), so rules
 * written as plans exist once.
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

/** Thrown inside a transaction to roll it back while handing the caller a value (a refused plan). */
export class Rollback<R> {
  constructor(readonly value: R) {}
}
