import { describe, expect, it } from 'vitest';
import type { Plan, StepResult } from '@gw/database';
import { releasePlan, reservePlan, settlePlan } from './balance-plans.js';

/** Runs a plan against scripted step results; returns the plan's result and the SQL it issued. */
function run<R>(plan: Plan<R>, results: StepResult[]) {
  const sql: string[] = [];
  let input: StepResult;
  for (let i = 0; ; i++) {
    const next = plan.next(input);
    if (next.done) return { result: next.value, sql };
    sql.push(next.value.sql);
    input = results[i];
  }
}

describe('ledger plans', () => {
  it('reserve debits the user then the token, and rolls back naming the short balance', () => {
    expect(run(reservePlan(1, 2, 100), [1, 1]).result).toEqual({ commit: true, value: 'ok' });
    expect(run(reservePlan(1, 2, 100), [0]).result).toEqual({ commit: false, value: 'user_quota' });
    expect(run(reservePlan(1, 2, 100), [1, 0]).result).toEqual({ commit: false, value: 'token_quota' });
    const playground = run(reservePlan(1, 0, 100), [1]);
    expect(playground.sql).toHaveLength(1);
    expect(playground.sql[0]).toContain('quota >= :n');
  });

  it('settle refunds an over-estimate unconditionally and takes an under-estimate in full, reading the balance only when it goes short', () => {
    const refund = run(settlePlan(1, 2, 100, 40), [1, 1]);
    expect(refund.result).toEqual({ commit: true, value: { charged: 40, shortfall: 0 } });
    expect(refund.sql[0]).not.toContain('>=');
    expect(run(settlePlan(1, 2, 100, 150), [1, 1]).result).toEqual({ commit: true, value: { charged: 150, shortfall: 0 } });
    const short = run(settlePlan(1, 2, 100, 150), [0, 1, { quota: -20 }, 1]);
    expect(short.result).toEqual({ commit: true, value: { charged: 150, shortfall: 20 } });
    expect(short.sql[1]).not.toContain('>=');
    const tokenShort = run(settlePlan(1, 2, 100, 150), [1, 0, 1, { remain_quota: -50 }]);
    expect(tokenShort.result.value).toEqual({ charged: 150, shortfall: 50 });
  });

  it('with a request id, reserve records the reservation and settle or refund act only on an open one', () => {
    const reserve = run(reservePlan(1, 2, 100, { requestId: 'r1', owner: 'o' }), [1, 1, 1]);
    expect(reserve.sql[2]).toContain('INSERT INTO quota_reservations');
    expect(run(settlePlan(1, 2, 100, 40, 'r1'), [0]).result).toEqual({ commit: false, value: undefined });
    expect(run(settlePlan(1, 2, 100, 40, 'r1'), [1, 1, 1]).result.value).toEqual({ charged: 40, shortfall: 0 });
    expect(run(releasePlan(1, 2, 100, 'r1'), [0]).result).toEqual({ commit: false, value: false });
    expect(run(releasePlan(1, 2, 100, 'r1'), [1, 1, 1]).result).toEqual({ commit: true, value: true });
  });
});
