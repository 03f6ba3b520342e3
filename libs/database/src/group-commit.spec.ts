import { describe, expect, it } from 'vitest';
import { GroupCommit, OneTripError, type OneTripPlanner, type Transactions } from './group-commit.js';

/**
 * An in-memory "database" with transactions: a balance, a log of what each transaction did, and the
 * committed state. Enough to check what the batcher promises: one transaction per batch, answers only
 * after the commit, a failing movement answered alone and the rest run again.
 */
function fakeDatabase(initial: number) {
  const state = { committed: initial, commits: 0, rollbacks: 0, begins: 0 };
  interface Tx {
    balance: number;
  }
  let failCommitOnce: Error | undefined;
  const transactions: Transactions<Tx> = {
    begin: async () => {
      state.begins++;
      return { balance: state.committed };
    },
    commit: async (tx) => {
      if (failCommitOnce) {
        const error = failCommitOnce;
        failCommitOnce = undefined;
        throw error;
      }
      state.committed = tx.balance;
      state.commits++;
    },
    rollback: async () => {
      state.rollbacks++;
    },
    release: () => undefined,
  };
  const debit = (amount: number) => ({
    run: async (tx: Tx) => {
      if (tx.balance < amount) return false;
      tx.balance -= amount;
      return true;
    },
    after: (ok: boolean) => (ok ? 'ok' : 'refused'),
  });
  return { state, commits: new GroupCommit(transactions), debit, failNextCommit: (e: Error) => (failCommitOnce = e) };
}

describe('GroupCommit', () => {
  it('movements that arrive while a transaction commits share the next one, each checked against the ones before', async () => {
    const { state, commits, debit } = fakeDatabase(250);
    const outcomes = await Promise.all([100, 100, 100, 50].map((n) => commits.submit(debit(n))));
    expect(outcomes).toEqual(['ok', 'ok', 'refused', 'ok']);
    expect(state.committed).toBe(0);
    // The first went alone (nothing was committing), the other three waited and went together.
    expect(state.commits).toBe(2);
  });

  it('a movement that throws is answered alone; the batch is rolled back and the others run again', async () => {
    const { state, commits, debit } = fakeDatabase(300);
    const broken = {
      run: async (tx: { balance: number }) => {
        tx.balance -= 1000; // half-applied before the failure: must not survive
        throw new Error('statement failed');
      },
      after: () => 'never',
    };
    const refusedByError = {
      run: async () => {
        throw new Error('division by zero');
      },
      refusal: (error: unknown) => ((error as Error).message.includes('division') ? 'token_quota' : undefined),
      after: () => 'never',
    };
    const first = commits.submit(debit(10));
    const rest = [commits.submit(debit(100)), commits.submit(broken), commits.submit(refusedByError), commits.submit(debit(100))];
    expect(await first).toBe('ok');
    const settled = await Promise.allSettled(rest);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
      'ok',
      'statement failed',
      'token_quota',
      'ok',
    ]);
    expect(state.committed).toBe(90);
    expect(state.rollbacks).toBe(2);
  });

  it('a deadlock runs the whole batch again; a failed COMMIT is reported to every movement of the batch', async () => {
    const { state, commits, debit, failNextCommit } = fakeDatabase(100);
    let deadlocked = false;
    const deadlockOnce = {
      run: async (tx: { balance: number }) => {
        if (!deadlocked) {
          deadlocked = true;
          throw Object.assign(new Error('Deadlock found when trying to get lock'), { code: 'ER_LOCK_DEADLOCK' });
        }
        tx.balance -= 5;
        return true;
      },
      after: () => 'retried',
    };
    expect(await commits.submit(deadlockOnce)).toBe('retried');
    expect(state.committed).toBe(95);
    failNextCommit(new Error('connection lost'));
    await expect(commits.submit(debit(10))).rejects.toThrow('connection lost');
    expect(state.committed).toBe(95);
    // The batcher goes on after a failed batch.
    expect(await commits.submit(debit(10))).toBe('ok');
    expect(state.committed).toBe(85);
  });

  it('a single-statement movement alone in its batch autocommits without BEGIN/COMMIT; in a batch it joins the transaction', async () => {
    const { state, commits, debit } = fakeDatabase(100);
    const autocommitted: number[] = [];
    // The "statement" alone: applies to the committed state directly, as an autocommit would.
    const single = (amount: number) => ({
      ...debit(amount),
      alone: async () => {
        autocommitted.push(amount);
        if (state.committed < amount) return false;
        state.committed -= amount;
        return true;
      },
    });
    // The first goes alone (nothing is committing); the next two arrive while it runs and share one
    // transaction (alone is not used for them).
    const outcomes = await Promise.all([commits.submit(single(30)), commits.submit(single(50)), commits.submit(single(50))]);
    expect(outcomes).toEqual(['ok', 'ok', 'refused']);
    expect(autocommitted).toEqual([30]);
    expect(state.begins).toBe(1);
    expect(state.commits).toBe(1);
    expect(state.committed).toBe(20);
  });

  it('a lone statement is retried on deadlock, and its refusal or error answers it alone', async () => {
    const { state, commits } = fakeDatabase(100);
    let attempts = 0;
    const deadlockOnce = {
      run: async () => 'never',
      alone: async () => {
        if (++attempts === 1) throw Object.assign(new Error('Deadlock found'), { code: 'ER_LOCK_DEADLOCK' });
        return 'done';
      },
      after: (v: string) => v,
    };
    expect(await commits.submit(deadlockOnce)).toBe('done');
    expect(attempts).toBe(2);
    const refused = {
      run: async () => 'never',
      alone: async (): Promise<string> => {
        throw new Error('division by zero');
      },
      refusal: (error: unknown) => ((error as Error).message.includes('division') ? 'token_quota' : undefined),
      after: (v: string) => v,
    };
    expect(await commits.submit(refused)).toBe('token_quota');
    const broken = { ...refused, refusal: () => undefined };
    await expect(commits.submit(broken)).rejects.toThrow('division by zero');
    expect(state.begins).toBe(0);
  });
});

/**
 * The one-trip path with an in-memory planner: each movement is `{ amount }` debited from one balance, the
 * planner combines the whole batch into one "statement" that debits the sum and fails (like the SQL guard)
 * when the balance does not cover it. `trips` records what went in one trip.
 */
function oneTripDatabase(initial: number) {
  const db = fakeDatabase(initial);
  const trips: number[][] = [];
  let failNext: OneTripError | undefined;
  const planner: OneTripPlanner = {
    plan: (movements) => {
      const amounts = movements.map((m) => (m as { amount: number }).amount);
      return { statements: amounts.map(String), values: () => amounts.map(() => true) };
    },
    run: async (statements) => {
      const amounts = statements.map(Number);
      trips.push(amounts);
      if (failNext) {
        const error = failNext;
        failNext = undefined;
        throw error;
      }
      const total = amounts.reduce((a, b) => a + b, 0);
      // The guard: nothing is kept when the sum is not covered.
      if (db.state.committed < total) throw new OneTripError(new Error('BIGINT UNSIGNED value is out of range'), 'no');
      db.state.committed -= total;
      return amounts.map(() => ({ affectedRows: 1 }));
    },
  };
  const commits = new GroupCommit(
    {
      begin: async () => {
        db.state.begins++;
        return { balance: db.state.committed };
      },
      commit: async (tx: { balance: number }) => {
        db.state.committed = tx.balance;
        db.state.commits++;
      },
      rollback: async () => {
        db.state.rollbacks++;
      },
      release: () => undefined,
    },
    planner,
  );
  const debit = (amount: number) => ({ ...db.debit(amount), trip: { amount } });
  return { state: db.state, commits, debit, trips, failNextTrip: (e: OneTripError) => (failNext = e) };
}

describe('GroupCommit in one trip', () => {
  it('a batch whose movements all describe themselves goes as one trip; a lone movement does not', async () => {
    const { state, commits, debit, trips } = oneTripDatabase(1000);
    const outcomes = await Promise.all([10, 20, 30, 40].map((n) => commits.submit(debit(n))));
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok']);
    // The first went alone (statement by statement: one BEGIN … COMMIT), the other three in one trip.
    expect(trips).toEqual([[20, 30, 40]]);
    expect(state.begins).toBe(1);
    expect(state.committed).toBe(900);
  });

  it('a movement refused inside a combined batch: the trip is rolled back and the batch runs statement by statement', async () => {
    const { state, commits, debit, trips } = oneTripDatabase(100);
    const outcomes = await Promise.all([10, 50, 60, 30].map((n) => commits.submit(debit(n))));
    // 50 + 60 + 30 > 90 left: the combined trip fails its guard; one by one, 60 is refused and 30 fits.
    expect(trips).toEqual([[50, 60, 30]]);
    expect(outcomes).toEqual(['ok', 'ok', 'refused', 'ok']);
    expect(state.committed).toBe(10);
    expect(state.begins).toBe(2);
  });

  it('a deadlock runs the same trip again', async () => {
    const { state, commits, debit, trips, failNextTrip } = oneTripDatabase(100);
    const first = commits.submit(debit(1));
    failNextTrip(new OneTripError(Object.assign(new Error('Deadlock found'), { code: 'ER_LOCK_DEADLOCK' }), 'no'));
    const rest = Promise.all([commits.submit(debit(2)), commits.submit(debit(3))]);
    expect(await first).toBe('ok');
    expect(await rest).toEqual(['ok', 'ok']);
    expect(trips).toEqual([
      [2, 3],
      [2, 3],
    ]);
    expect(state.committed).toBe(94);
  });

  it('a trip lost mid-way (maybe committed) is reported to every movement and never run again', async () => {
    const { state, commits, debit, trips, failNextTrip } = oneTripDatabase(100);
    const first = commits.submit(debit(1));
    failNextTrip(new OneTripError(new Error('Connection lost: The server closed the connection.'), 'unknown'));
    const rest = Promise.allSettled([commits.submit(debit(2)), commits.submit(debit(3))]);
    expect(await first).toBe('ok');
    expect((await rest).map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.value))).toEqual([
      'Connection lost: The server closed the connection.',
      'Connection lost: The server closed the connection.',
    ]);
    expect(trips).toHaveLength(1);
    // Only the lone movement's transaction ran statement by statement.
    expect(state.begins).toBe(1);
    expect(await Promise.all([commits.submit(debit(4)), commits.submit(debit(5))])).toEqual(['ok', 'ok']);
  });

  it('a batch holding a movement without a trip goes statement by statement', async () => {
    const { state, commits, debit, trips } = oneTripDatabase(100);
    const plain = fakeDatabase(0).debit(5);
    const outcomes = await Promise.all([commits.submit(debit(1)), commits.submit(debit(2)), commits.submit(plain)]);
    expect(outcomes).toEqual(['ok', 'ok', 'ok']);
    expect(trips).toEqual([]);
    expect(state.begins).toBe(2);
    expect(state.committed).toBe(92);
  });
});
