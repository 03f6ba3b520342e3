import { describe, expect, it, vi } from 'vitest';
import { DayTextsService, missingRuns } from './day-texts.service.js';
import type { RenderedHour, SeriesTextRepository, StoredHour } from './series-text.repository.js';

const DAY = 86_400;

/** A repository holding `stored` day texts; rendering a day gives `rendered(day)`. */
function fakeTexts(stored: Map<number, StoredHour>, rendered: (day: number) => RenderedHour) {
  const repo = {
    read: vi.fn(async () => stored),
    renderDays: vi.fn(async (_dim: string, from: number, to: number) => {
      const days = new Map<number, RenderedHour>();
      for (let day = from; day < to; day += DAY) days.set(day, rendered(day));
      return days;
    }),
    store: vi.fn(async () => {}),
  };
  return { repo, service: new DayTextsService(repo as unknown as SeriesTextRepository) };
}

describe('DayTextsService', () => {
  it('reads the stored days, renders only the others in runs, and stores them under the generation read', async () => {
    const stored = new Map<number, StoredHour>([
      [DAY, { gen: 3, rows: 1, body: Buffer.from('"a"') }],
      [2 * DAY, { gen: 4, rows: 0 }],
      [4 * DAY, { gen: 1, rows: 1, body: Buffer.from('"d"') }],
    ]);
    const { repo, service } = fakeTexts(stored, (day) => ({ rows: 1, text: day === 3 * DAY ? '' : `"${day / DAY}"` }));
    const parts = await service.fragments('username', DAY, 6 * DAY);
    expect(parts?.map((p) => p.toString())).toEqual(['"a"', '"2"', '"d"', '"5"']);
    expect(repo.read).toHaveBeenCalledWith('username-day', DAY, 6 * DAY);
    expect(repo.renderDays.mock.calls).toEqual([
      ['username', 2 * DAY, 4 * DAY],
      ['username', 5 * DAY, 6 * DAY],
    ]);
    expect(repo.store).toHaveBeenCalledWith('username-day', [
      { hour: 2 * DAY, gen: 4, rows: 1, text: '"2"' },
      { hour: 3 * DAY, gen: undefined, rows: 1, text: '' },
      { hour: 5 * DAY, gen: undefined, rows: 1, text: '"5"' },
    ]);
  });

  it('gives up (rows instead) when a day was cut by the server cap, storing nothing', async () => {
    const { repo, service } = fakeTexts(new Map(), (day) => ({ rows: 1, text: day === 2 * DAY ? undefined : 'x' }));
    expect(await service.fragments('model', DAY, 3 * DAY)).toBeUndefined();
    expect(repo.store).not.toHaveBeenCalled();
  });

  it('answers even when storing fails', async () => {
    const { repo, service } = fakeTexts(new Map(), () => ({ rows: 1, text: '"x"' }));
    repo.store.mockRejectedValueOnce(new Error('lock wait timeout'));
    expect((await service.fragments('model', DAY, 2 * DAY))?.map(String)).toEqual(['"x"']);
  });
});

describe('missingRuns', () => {
  it('groups the days without a text into runs of consecutive days', () => {
    const has = new Set([2 * DAY, 3 * DAY, 6 * DAY]);
    expect(missingRuns(DAY, 8 * DAY, (day) => has.has(day))).toEqual([
      [DAY, 2 * DAY],
      [4 * DAY, 6 * DAY],
      [7 * DAY, 8 * DAY],
    ]);
    expect(missingRuns(DAY, DAY, () => false)).toEqual([]);
  });
});
