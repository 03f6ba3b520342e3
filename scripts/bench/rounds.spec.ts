import { describe, expect, it } from 'vitest';
import { combineRounds, roundOrder, roundRatios, type WorkerRun } from './rounds.mjs';

const run = (overrides: Partial<WorkerRun>): WorkerRun => ({
  workers: 2,
  label: 'sqlite',
  perSecond: 1000,
  requests: 10_000,
  failed: 0,
  billed: 10_000,
  rss: 400,
  cpuPerRequest: 0.5,
  perProcess: [0.01, 0.25, 0.25],
  databaseCpuPerRequest: Number.NaN,
  machineCpuPerRequest: 0.6,
  ...overrides,
});

describe('workers bench rounds', () => {
  it('alternates the order of the counts, round by round', () => {
    expect([0, 1, 2, 3].map((round) => roundOrder([1, 2, 4], round))).toEqual([
      [1, 2, 4],
      [4, 2, 1],
      [1, 2, 4],
      [4, 2, 1],
    ]);
  });

  it('averages throughput, sums counts, keeps the highest RSS and weights per-request figures by requests', () => {
    const combined = combineRounds([
      run({
        perSecond: 1000,
        requests: 10_000,
        failed: 1,
        billed: 9_999,
        rss: 400,
        cpuPerRequest: 0.4,
        perProcess: [0.01, 0.2, 0.2],
        machineCpuPerRequest: 0.5,
      }),
      run({
        perSecond: 3000,
        requests: 30_000,
        failed: 2,
        billed: 29_998,
        rss: 420,
        cpuPerRequest: 0.6,
        perProcess: [0.03, 0.3, 0.3],
        machineCpuPerRequest: 0.7,
      }),
    ]);
    expect(combined).toMatchObject({ workers: 2, label: 'sqlite', perSecond: 2000, requests: 40_000, failed: 3, billed: 39_997, rss: 420 });
    // (0.4 x 10,000 + 0.6 x 30,000) / 40,000, not the plain mean 0.5.
    expect(combined.cpuPerRequest).toBeCloseTo(0.55, 10);
    expect(combined.machineCpuPerRequest).toBeCloseTo(0.65, 10);
    expect(combined.perProcess.map((ms) => Number(ms.toFixed(4)))).toEqual([0.025, 0.275, 0.275]);
    // SQLite has no database server to measure: its figure stays "none", not 0.
    expect(combined.databaseCpuPerRequest).toBeNaN();
  });

  it("gives each round's throughput over the same round of one worker", () => {
    const one = [run({ workers: 1, perSecond: 2000 }), run({ workers: 1, perSecond: 2500 })];
    const two = [run({ perSecond: 2400 }), run({ perSecond: 2500 })];
    expect(roundRatios(two, one)).toEqual([1.2, 1]);
  });
});
