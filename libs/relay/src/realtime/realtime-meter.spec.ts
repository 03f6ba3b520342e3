import { describe, expect, it } from 'vitest';
import type { NewLog } from '@gw/log';
import type { QuotaLedger } from '../billing/quota-ledger.js';
import { RelayCharges } from '../billing/relay-charges.js';
import { ReserveOverlap } from '../billing/reserve-overlap.js';
import type { PriceInfo, RelayCaller, RelayPricing } from '../pipeline/ports.js';
import type { AudioUsage } from '../pricing/billing-formulas.js';
import { RealtimeMeter } from './realtime-meter.js';

const who = {
  userId: 7,
  username: 'u',
  role: 1,
  userGroup: 'default',
  tokenId: 9,
  tokenName: 't',
  requestedGroup: '',
  acceptUnsetModelRatioModel: false,
  recordIp: false,
  playground: false,
} satisfies RelayCaller;
const ratio: PriceInfo = { usePrice: false, modelPrice: -1, modelRatio: 2, completionRatio: 1, cacheRatio: 1, groupRatio: 1 };
const fixed: PriceInfo = { ...ratio, usePrice: true, modelPrice: 0.01, modelRatio: 0 };
const usage = (input: number, output: number): AudioUsage => ({
  inputTokens: input,
  outputTokens: output,
  inputAudioTokens: 0,
  outputAudioTokens: 0,
  cachedTokens: 0,
  cachedAudioTokens: 0,
});

/** A meter over a ledger that records its moves and refuses reserves once `balance` runs out. */
function harness(price: PriceInfo, balance = Number.POSITIVE_INFINITY) {
  const moves: string[] = [];
  const rows: NewLog[] = [];
  let left = balance;
  const ledger = {
    reserve: async (_u: number, _t: number, amount: number, id: string) => {
      if (left < amount) {
        moves.push(`refused ${id}`);
        return 'user_quota';
      }
      left -= amount;
      moves.push(`reserve ${id} ${amount}`);
      return 'ok';
    },
    settle: async (_u: number, _t: number, reserved: number, actual: number, id: string) => {
      left -= actual - reserved;
      moves.push(`settle ${id} ${actual}`);
      return { charged: actual, shortfall: 0 };
    },
    release: async (_u: number, _t: number, amount: number, id: string) => {
      left += amount;
      moves.push(`release ${id} ${amount}`);
    },
  } as unknown as QuotaLedger;
  const auth = { applySpend: () => {}, markExhausted: async () => {} } as never;
  const charges = new RelayCharges(
    auth,
    new ReserveOverlap(),
    { addUsedQuota: () => {} } as never,
    { record: (row: NewLog) => rows.push(row) } as never,
    {
      quotaChanged: () => {},
    } as never,
  );
  const pricing = {
    preConsumeQuota: (info: PriceInfo) => (info.usePrice ? 5000 : 100),
    audioQuota: (info: PriceInfo, u: AudioUsage) => (info.usePrice ? 5000 : (u.inputTokens + u.outputTokens) * info.modelRatio),
  } as unknown as RelayPricing;
  const meter = new RealtimeMeter(
    { ledger, charges, pricing },
    { who, model: 'rt', group: 'default', price, ratios: { audio: 8, audioCompletion: 2 }, requestId: 'req', ip: '' },
  );
  meter.servedBy({ channel: { id: 3, name: 'c' } as never, usedChannels: [3], upstreamModel: 'rt-up', group: 'default', price });
  return { meter, moves, rows, left: () => left };
}

describe('RealtimeMeter', () => {
  it('bills each response.done on its own reservation, takes the next one at once, and gives the last one back', async () => {
    const { meter, moves, rows } = harness(ratio);
    await meter.open();
    expect(await meter.responseDone(usage(10, 20))).toBeUndefined();
    expect(await meter.responseDone(usage(1, 1))).toBeUndefined();
    await meter.finish();
    await meter.finish();
    expect(moves).toEqual([
      'reserve req 100',
      'settle req 60',
      'reserve req-2 100',
      'settle req-2 4',
      'reserve req-3 100',
      'release req-3 100',
    ]);
    expect(rows.map((r) => [r.requestId, r.quota, r.promptTokens, r.completionTokens, r.modelName, r.isStream])).toEqual([
      ['req', 60, 10, 20, 'rt', true],
      ['req-2', 4, 1, 1, 'rt', true],
    ]);
    expect(rows[0]!.other).toMatchObject({
      ws: true,
      audio_ratio: 8,
      audio_completion_ratio: 2,
      request_path: '/v1/realtime',
      upstream_model_name: 'rt-up',
    });
  });

  it('ends the session when the next reservation is refused, after charging the response in full', async () => {
    const { meter, moves, left } = harness(ratio, 150);
    await meter.open();
    const refusal = await meter.responseDone(usage(10, 20));
    expect(refusal?.errorCode).toBe('insufficient_user_quota');
    await meter.finish();
    expect(await meter.responseDone(usage(10, 20))).toBeUndefined();
    expect(moves).toEqual(['reserve req 100', 'settle req 60', 'refused req-2']);
    expect(left()).toBe(90);
  });

  it('refuses the session before the upstream is called when the first reservation is refused', async () => {
    const { meter, moves } = harness(ratio, 50);
    await expect(meter.open()).rejects.toMatchObject({ httpStatus: 403 });
    await meter.finish();
    expect(moves).toEqual(['refused req']);
  });

  it('charges a fixed price once for a session that had usage, and nothing for one that had none', async () => {
    const used = harness(fixed);
    await used.meter.open();
    await used.meter.responseDone(usage(10, 20));
    await used.meter.responseDone(usage(5, 5));
    await used.meter.finish();
    expect(used.moves).toEqual(['reserve req 5000', 'settle req 5000']);
    expect(used.rows.map((r) => [r.quota, r.promptTokens, r.completionTokens])).toEqual([[5000, 15, 25]]);

    const idle = harness(fixed);
    await idle.meter.open();
    await idle.meter.finish();
    expect(idle.moves).toEqual(['reserve req 5000', 'release req 5000']);
    expect(idle.rows).toEqual([]);
  });
});
