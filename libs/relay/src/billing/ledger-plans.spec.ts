import { describe, expect, it } from 'vitest';
import { headroomPlan, reservePlan, settlePlan, type Plan, type StepResult } from './ledger-plans.js';

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

  it('settle refunds an over-estimate unconditionally and charges an under-estimate only if both balances cover it', () => {
    const refund = run(settlePlan(1, 2, 100, 40), [1, 1]);
    expect(refund.result).toEqual({ commit: true, value: { charged: 40, capped: false } });
    expect(refund.sql[0]).not.toContain('>=');
    expect(run(settlePlan(1, 2, 100, 150), [1, 0]).result).toEqual({ commit: false, value: undefined });
    expect(run(settlePlan(1, 2, 100, 150), [1, 1]).result).toEqual({ commit: true, value: { charged: 150, capped: false } });
  });

  it('a capped settle charges at most the headroom', () => {
    expect(run(settlePlan(1, 2, 100, 150, 20), [1, 1]).result).toEqual({ commit: true, value: { charged: 120, capped: true } });
    expect(run(headroomPlan(1, 2), [{ quota: 20 }, { remain_quota: 5, unlimited_quota: 0 }]).result.value).toBe(5);
    expect(run(headroomPlan(1, 2), [{ quota: 20 }, { remain_quota: 5, unlimited_quota: 1 }]).result.value).toBe(20);
    expect(run(headroomPlan(1, 2), [{ quota: -3 }, { remain_quota: 5, unlimited_quota: 1 }]).result.value).toBe(0);
  });
});
