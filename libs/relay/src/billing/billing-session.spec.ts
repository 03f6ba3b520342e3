import { describe, expect, it } from 'vitest';
import { RelayError } from '../pipeline/relay-error.js';
import { BillingSession } from './billing-session.js';
import type { QuotaLedger } from './quota-ledger.js';

function fakeLedger(reserveOutcome: 'ok' | 'user_quota' | 'token_quota' = 'ok') {
  const calls: string[] = [];
  const ledger = {
    reserve: async (_u: number, _t: number, n: number) => {
      calls.push(`reserve ${n}`);
      return reserveOutcome;
    },
    release: async (_u: number, _t: number, n: number) => void calls.push(`release ${n}`),
    settle: async (_u: number, _t: number, reserved: number, actual: number) => {
      calls.push(`settle ${reserved}->${actual}`);
      return { charged: actual, shortfall: 0 };
    },
  };
  return { ledger: ledger as unknown as QuotaLedger, calls };
}

describe('BillingSession', () => {
  it('settles once: a second settle or a later refund does nothing', async () => {
    const { ledger, calls } = fakeLedger();
    const session = new BillingSession(ledger, 1, 2);
    await session.reserve(100);
    expect(await session.settle(40)).toEqual({ charged: 40, shortfall: 0 });
    expect(await session.settle(40)).toBeUndefined();
    await session.refund();
    expect(calls).toEqual(['reserve 100', 'settle 100->40']);
  });

  it('refunds once, and never settles after a refund', async () => {
    const { ledger, calls } = fakeLedger();
    const session = new BillingSession(ledger, 1, 2);
    await session.reserve(100);
    await Promise.all([session.refund(), session.refund()]);
    expect(await session.settle(10)).toBeUndefined();
    expect(calls).toEqual(['reserve 100', 'release 100']);
  });

  it("maps a refused reservation to new-api's 403 codes and leaves nothing to refund", async () => {
    for (const [outcome, code] of [
      ['user_quota', 'insufficient_user_quota'],
      ['token_quota', 'pre_consume_token_quota_failed'],
    ] as const) {
      const { ledger, calls } = fakeLedger(outcome);
      const session = new BillingSession(ledger, 1, 2);
      const error = await session.reserve(100).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RelayError);
      expect((error as RelayError).httpStatus).toBe(403);
      expect((error as RelayError).errorCode).toBe(code);
      await session.refund();
      expect(calls).toEqual(['reserve 100']);
    }
  });

  it('a refund while the reserve still runs (beside the upstream call) waits for it, then gives it back', async () => {
    const { ledger, calls } = fakeLedger();
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    const slow = {
      ...ledger,
      reserve: async (...args: Parameters<QuotaLedger['reserve']>) => {
        await committed;
        return ledger.reserve(...args);
      },
    };
    const session = new BillingSession(slow as unknown as QuotaLedger, 1, 2, 'req-1');
    const reserving = session.reserve(100);
    const refunded = session.refund();
    commit();
    await Promise.all([reserving, refunded]);
    expect(calls).toEqual(['reserve 100', 'release 100']);
    expect(await session.settle(10)).toBeUndefined();
  });
});
