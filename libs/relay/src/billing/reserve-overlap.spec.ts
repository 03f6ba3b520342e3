import { describe, expect, it } from 'vitest';
import { OVERLAP_MARGIN, REFUSAL_COOLDOWN_MS, ReserveOverlap } from './reserve-overlap.js';

const RICH = { user: 1_000_000, token: Number.POSITIVE_INFINITY };

describe('ReserveOverlap', () => {
  it('overlaps only while the balances cover OVERLAP_MARGIN × everything reserved here for the user, this request included', () => {
    const overlap = new ReserveOverlap();
    const view = { user: OVERLAP_MARGIN * 300, token: Number.POSITIVE_INFINITY };
    const tickets = [1, 2, 3, 4].map(() => overlap.enter(1, 2, 100, view));
    expect(tickets.map((t) => t.overlap)).toEqual([true, true, true, false]);
    // Requests that reserve first count too, until they finish; a ticket leaves once.
    tickets[0]!.leave();
    tickets[0]!.leave();
    const fifth = overlap.enter(1, 2, 100, view);
    expect(fifth.overlap).toBe(false);
    fifth.leave();
    tickets[3]!.leave();
    expect(overlap.enter(1, 2, 100, view).overlap).toBe(true);
  });

  it("checks the token's balance too, and never overlaps without a view or with a balance of 0 or less", () => {
    const overlap = new ReserveOverlap();
    expect(overlap.enter(1, 2, 100, { user: 1_000_000, token: OVERLAP_MARGIN * 100 - 1 }).overlap).toBe(false);
    expect(overlap.enter(1, 3, 100, { user: 1_000_000, token: OVERLAP_MARGIN * 100 }).overlap).toBe(true);
    expect(overlap.enter(4, 5, 100, undefined).overlap).toBe(false);
    expect(overlap.enter(6, 0, 0, { user: 0, token: Number.POSITIVE_INFINITY }).overlap).toBe(false);
    // The playground (no token) is judged on the user alone.
    expect(overlap.enter(7, 0, 100, RICH).overlap).toBe(true);
  });

  it('after a refusal, that user and that token reserve first for REFUSAL_COOLDOWN_MS', () => {
    const overlap = new ReserveOverlap();
    const now = Date.now();
    overlap.refused(1, 2, now);
    expect(overlap.enter(1, 9, 1, RICH).overlap).toBe(false);
    expect(overlap.enter(8, 2, 1, RICH).overlap).toBe(false);
    expect(overlap.enter(8, 9, 1, RICH).overlap).toBe(true);
    overlap.refused(1, 2, now - REFUSAL_COOLDOWN_MS - 1);
    expect(overlap.enter(1, 2, 1, RICH).overlap).toBe(true);
  });
});
