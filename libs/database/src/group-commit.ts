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

  constructor(private readonly transactions: Transactions<Tx>) {}

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
