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
    // One token a character.
    countTextTokens: (_model: string, text: string) => text.length,
  } as unknown as RelayPricing;
  const meter = new RealtimeMeter(
    { ledger, charges, pricing },
    { who, model: 'rt', group: 'default', price, ratios: { audio: 8, audioCompletion: 2 }, requestId: 'req', ip: '' },
  );
  meter.servedBy({ channel: { id: 3, name: 'c' } as never, usedChannels: [3], upstreamModel: 'rt-up', group: 'default', price });
  return { meter, moves, rows, left: () => left };
}

const event = (value: unknown) => Buffer.from(JSON.stringify(value));
/** What passes in a response the client reads part of: its message, 2 s of audio in, a text and 1 s of audio out. */
function partOfAResponse(meter: RealtimeMeter): void {
  meter.clientFrame(event({ type: 'conversation.item.create', item: { type: 'message', content: [{ type: 'input_text', text: 'Hi' }] } }));
  meter.clientFrame(event({ type: 'input_audio_buffer.append', audio: Buffer.alloc(96_000).toString('base64') }));
  meter.clientFrame(event({ type: 'response.create' }));
  meter.upstreamFrame(event({ type: 'response.created', response: {} }));
  meter.upstreamFrame(event({ type: 'response.text.delta', delta: 'Hello' }));
  meter.upstreamFrame(event({ type: 'response.audio.delta', delta: Buffer.alloc(48_000).toString('base64') }));
}
/** 2 text + 55 audio tokens in, 5 text + 13 audio tokens out. */
const COUNTED = { inputTokens: 57, outputTokens: 18, inputAudioTokens: 55, outputAudioTokens: 13, cachedTokens: 0, cachedAudioTokens: 0 };

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

  it('charges a response the session ended in at its local count, with one row marked as counted locally', async () => {
    const { meter, moves, rows } = harness(ratio);
    await meter.open();
    expect(await meter.responseDone(usage(10, 20))).toBeUndefined();
    partOfAResponse(meter);
    await meter.finish();
    expect(moves).toEqual(['reserve req 100', 'settle req 60', 'reserve req-2 100', 'settle req-2 150']);
    expect(rows.map((r) => [r.requestId, r.quota, r.promptTokens, r.completionTokens])).toEqual([
      ['req', 60, 10, 20],
      ['req-2', 150, 57, 18],
    ]);
    expect(rows[0]!.other).not.toHaveProperty('admin_info.local_count_tokens');
    expect(rows[1]!.other).toMatchObject({
      ws: true,
      admin_info: { local_count_tokens: true },
      text_input: 2,
      audio_input: 55,
      text_output: 5,
      audio_output: 13,
      audio_ratio: 8,
      audio_completion_ratio: 2,
    });
  });

  it("bills a response.done's usage in place of what was counted of it, never both", async () => {
    const { meter, moves, rows } = harness(ratio);
    await meter.open();
    partOfAResponse(meter);
    expect(await meter.responseDone(usage(10, 20))).toBeUndefined();
    await meter.finish();
    expect(moves).toEqual(['reserve req 100', 'settle req 60', 'reserve req-2 100', 'release req-2 100']);
    expect(rows.map((r) => [r.quota, r.promptTokens, r.completionTokens, r.other?.admin_info])).toEqual([
      [60, 10, 20, { use_channel: ['3'] }],
    ]);
  });

  it('bills a response.done without usage at the local count, and keeps the reservation on one with zero usage', async () => {
    const { meter, moves, rows } = harness(ratio);
    await meter.open();
    partOfAResponse(meter);
    expect(await meter.responseDone(undefined)).toBeUndefined();
    partOfAResponse(meter);
    expect(await meter.responseDone(usage(0, 0))).toBeUndefined();
    expect(await meter.responseDone(undefined)).toBeUndefined();
    await meter.finish();
    expect(moves).toEqual(['reserve req 100', 'settle req 150', 'reserve req-2 100', 'release req-2 100']);
    expect(rows.map((r) => [r.quota, r.promptTokens, r.completionTokens])).toEqual([[150, COUNTED.inputTokens, COUNTED.outputTokens]]);
  });

  it('counts input sent after the last response.done, and charges a fixed price for a session only counted locally', async () => {
    const input = harness(ratio);
    await input.meter.open();
    input.meter.clientFrame(event({ type: 'session.update', session: { instructions: 'Be brief' } }));
    await input.meter.finish();
    expect(input.moves).toEqual(['reserve req 100', 'settle req 16']);

    const priced = harness(fixed);
    await priced.meter.open();
    partOfAResponse(priced.meter);
    await priced.meter.finish();
    expect(priced.moves).toEqual(['reserve req 5000', 'settle req 5000']);
    expect(priced.rows.map((r) => [r.promptTokens, r.completionTokens, r.other?.admin_info])).toEqual([
      [COUNTED.inputTokens, COUNTED.outputTokens, { use_channel: ['3'], local_count_tokens: true }],
    ]);
  });
});
