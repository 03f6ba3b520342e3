/**
 * Group commit on the server databases (the relay's ledger uses it). A durable commit costs a log flush (5–8 ms
 * on a plain disk), and every reserve, settle and refund of every request used to pay one, each holding
 * the user's and the token's row locks until its own flush. Here the movements that arrive while a
 * transaction is committing wait for it and then go together in the next one: one BEGIN … COMMIT on one
 * pooled connection for the whole batch, each movement still its own conditional statement(s), run in
 * arrival order, so each sees the balances left by the ones before it (nothing changes for concurrent
 * spending: the database stays the only truth and the recovery job sees exactly the rows it sees today).
 * A movement that arrives while nothing is committing starts a transaction at once, so a lone request
 * waits for nothing but its own commit. A promise settles only once its batch has committed.
 *
 * Settles are not held back to travel with the next reserve: that saves a log flush per request at
 * concurrency 1, but a balance read right after an answer would then miss the request's charge.
 *
 * A movement that is a single statement may offer `alone`: when it is the only one of its batch (a lone
 * request, the common case at low concurrency) it runs as that one autocommitted statement instead of
 * BEGIN, statement, COMMIT — one round trip instead of three, the same single durable commit, the
 * same atomicity (one statement is all or nothing).
 *
 * One round trip per batch: each statement awaited on its own costs a round trip plus a turn of a busy
 * event loop, and the server runs the batch's statements one after another while the batch holds the hot
 * user and token row locks; that (not CPU) bounded a single user's throughput at c=50 on MariaDB
 * (batches of ~47 movements, ~40 commits/s). With a OneTripPlanner, a batch whose movements all describe
 * themselves (`trip`) goes as one multi-statement text, BEGIN … COMMIT, which the planner may shorten by
 * combining movements (see OneTripPlanner for what it must keep). A trip that fails is rolled back whole
 * (see OneTripError): a deadlock runs it again, any other failure (a guard of the planner included) runs
 * the batch statement by statement, which answers every movement, refusals and errors alone.
 */

/** One movement's statements inside the batch's open transaction, and its work after the commit. */
export interface BatchedMovement<Tx, V, R> {
  /** Runs the movement's statements in the batch's transaction; its value is kept until the commit. */
  run(tx: Tx): Promise<V>;
  /**
   * The same movement as ONE statement committed on its own (autocommit), used instead of `run` when it
   * is alone in its batch. Only for movements whose `run` is a single statement: nothing else may differ.
   */
  alone?(): Promise<V>;
  /**
   * A statement error that only refuses this movement (PostgreSQL's token-short guard): the value to
   * answer with, once the batch was rolled back and run again without it. undefined: a real error.
   */
  refusal?(error: unknown): R | undefined;
  /** After the commit (outside the transaction): turns the value into the caller's answer. */
  after(value: V): R | Promise<R>;
  /**
   * What the movement is, for the one-trip planner (see OneTripPlanner): absent, a batch holding it goes
   * statement by statement.
   */
  trip?: unknown;
}

/**
 * Turns a whole batch into SQL text for one round trip (BEGIN … COMMIT included by `run`). The planner
 * may combine movements (one statement for many), but the statements must leave exactly what running the
 * movements one by one in SOME order would leave, and must fail (so the trip is rolled back) whenever
 * that cannot be proven from inside the trip (a movement that would be refused, a row not in the
 * expected state): the batch then goes statement by statement, which answers each movement exactly.
 */
export interface OneTripPlanner {
  /** undefined: this batch cannot go in one trip. */
  plan(trips: unknown[]): TripPlan | undefined;
  /**
   * START TRANSACTION, the statements, COMMIT as ONE round trip; the statements' results in order. Throws a
   * OneTripError (after rolling back). undefined when no one-trip connection is available (closed).
   */
  run(statements: string[]): Promise<unknown[] | undefined>;
}

export interface TripPlan {
  statements: string[];
  /** Each movement's value (in batch order), read from the statements' results. */
  values(results: unknown[]): unknown[];
}

/**
 * Why a one-trip batch failed. `committed: 'no'`: the server answered with an error, so it stopped at
 * that statement and the transaction was rolled back (nothing of the trip is kept). `'unknown'`: the
 * connection was lost, possibly after the COMMIT ran: nobody can say, every caller hears the error.
 */
export class OneTripError extends Error {
  constructor(
    override readonly cause: unknown,
    readonly committed: 'no' | 'unknown',
  ) {
    super((cause as Error)?.message ?? String(cause));
  }
}

/** Transactions on one pooled connection of the driver's own pool. */
export interface Transactions<Tx> {
  begin(): Promise<Tx>;
  commit(tx: Tx): Promise<void>;
  /** Rolls back what is open (errors ignored) and gives the connection back to the pool. */
  rollback(tx: Tx): Promise<void>;
  release(tx: Tx): void;
}

interface Queued<Tx> {
  movement: BatchedMovement<Tx, unknown, unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const DEADLOCK = /deadlock|ER_LOCK_DEADLOCK|ER_LOCK_WAIT_TIMEOUT|40P01|40001/i;
const MAX_ATTEMPTS = 4;
/** Enough to share a flush among a few hundred requests in flight, small enough to keep row locks short. */
const MAX_BATCH = 256;

function isDeadlock(error: unknown): boolean {
  return DEADLOCK.test(`${(error as Error)?.message ?? error} ${(error as { code?: string })?.code ?? ''}`);
}

export class GroupCommit<Tx> {
  /** Movements waiting for the next transaction. */
  private queue: Queued<Tx>[] = [];
  /**
   * One batch at a time per instance: the batches touch the same few user and token rows, so a second
   * transaction would only wait for the first one's locks (or deadlock with it on a different order).
   */
  private committing = false;

  constructor(
    private readonly transactions: Transactions<Tx>,
    private readonly oneTrip?: OneTripPlanner,
  ) {}

  submit<V, R>(movement: BatchedMovement<Tx, V, R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ movement: movement as BatchedMovement<Tx, unknown, unknown>, resolve: resolve as (v: unknown) => void, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.committing || this.queue.length === 0) return;
    this.committing = true;
    void this.commitBatch(this.queue.splice(0, MAX_BATCH)).finally(() => {
      this.committing = false;
      this.pump();
    });
  }

  /**
   * Runs the batch in one transaction. A statement that fails takes the transaction down with it
   * (PostgreSQL aborts it, and a MySQL reserve may have half-applied), so the batch is rolled back, the
   * failing movement answered on its own (its refusal, or its error), and the others run again: nothing
   * is ever answered before the commit that made it true.
   */
  private async commitBatch(batch: Queued<Tx>[]): Promise<void> {
    if (batch.length === 1 && batch[0]!.movement.alone) return this.commitAlone(batch[0]!);
    if (batch.length > 1 && this.oneTrip && (await this.commitInOneTrip(this.oneTrip, batch))) return;
    let jobs = batch;
    let deadlocks = 0;
    while (jobs.length > 0) {
      let tx: Tx;
      try {
        tx = await this.transactions.begin();
      } catch (error) {
        for (const job of jobs) job.reject(error);
        return;
      }
      const values: unknown[] = [];
      let failedAt = -1;
      let failure: unknown;
      for (let i = 0; i < jobs.length && failedAt < 0; i++) {
        try {
          values.push(await jobs[i]!.movement.run(tx));
        } catch (error) {
          failedAt = i;
          failure = error;
        }
      }
      if (failedAt < 0) {
        try {
          await this.transactions.commit(tx);
        } catch (error) {
          await this.transactions.rollback(tx);
          if (isDeadlock(error) && ++deadlocks < MAX_ATTEMPTS) continue;
          // A failed COMMIT wrote nothing we can prove: every caller hears the error.
          for (const job of jobs) job.reject(error);
          return;
        }
        this.transactions.release(tx);
        for (const [i, job] of jobs.entries()) this.answer(job, values[i]);
        return;
      }
      await this.transactions.rollback(tx);
      if (isDeadlock(failure) && ++deadlocks < MAX_ATTEMPTS) continue;
      const failed = jobs[failedAt]!;
      const refusal = failed.movement.refusal?.(failure);
      if (refusal !== undefined) failed.resolve(refusal);
      else failed.reject(failure);
      jobs = jobs.filter((_, i) => i !== failedAt);
    }
  }

  /**
   * The batch as one round trip. true: every movement was answered (committed, or the trip's fate is
   * unknown and all heard the error); false: nothing was kept, the caller runs the batch statement by
   * statement (a movement without `trip`, a guard or statement error that is not a deadlock, no connection).
   */
  private async commitInOneTrip(oneTrip: OneTripPlanner, batch: Queued<Tx>[]): Promise<boolean> {
    const trips = batch.map((job) => job.movement.trip);
    if (trips.some((trip) => trip === undefined)) return false;
    const plan = oneTrip.plan(trips);
    if (!plan) return false;
    for (let attempt = 1; ; attempt++) {
      let results: unknown[] | undefined;
      try {
        results = await oneTrip.run(plan.statements);
      } catch (error) {
        const failure = error instanceof OneTripError ? error : new OneTripError(error, 'unknown');
        if (failure.committed === 'unknown') {
          // Possibly committed, possibly not: as with a failed COMMIT, nobody is told it happened.
          for (const job of batch) job.reject(failure.cause);
          return true;
        }
        if (isDeadlock(failure.cause) && attempt < MAX_ATTEMPTS) continue;
        return false;
      }
      if (!results) return false;
      let values: unknown[];
      try {
        values = plan.values(results);
      } catch (error) {
        for (const job of batch) job.reject(error);
        return true;
      }
      for (const [i, job] of batch.entries()) this.answer(job, values[i]);
      return true;
    }
  }

  /** One single-statement movement, autocommitted: retried on deadlock (the server rolled it back whole). */
  private async commitAlone(job: Queued<Tx>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      let value: unknown;
      try {
        value = await job.movement.alone!();
      } catch (error) {
        if (isDeadlock(error) && attempt < MAX_ATTEMPTS) continue;
        const refusal = job.movement.refusal?.(error);
        if (refusal !== undefined) job.resolve(refusal);
        else job.reject(error);
        return;
      }
      this.answer(job, value);
      return;
    }
  }

  private answer(job: Queued<Tx>, value: unknown): void {
    try {
      Promise.resolve(job.movement.after(value)).then(job.resolve, job.reject);
    } catch (error) {
      job.reject(error);
    }
  }
}
