import { describe, expect, it } from 'vitest';
import { mayHaveMore, nextServerPage, pagerTotal, placePage, rowsOfPage } from './load-more';

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('a list paged without a total', () => {
  it('appends each server page in its place, never twice', () => {
    const first = placePage([], 0, 10, range(0, 10));
    const second = placePage(first, 1, 10, range(10, 10));
    expect(second).toEqual(range(0, 20));
    expect(placePage(second, 1, 10, range(10, 4))).toEqual(range(0, 14));
    expect(placePage(second, 0, 10, range(100, 3))).toEqual(range(100, 3));
  });

  it('shows one page more in the pager while the last fetch was full', () => {
    expect(mayHaveMore(range(0, 10), 10)).toBe(true);
    expect(mayHaveMore(range(0, 9), 10)).toBe(false);
    expect(mayHaveMore([], 10)).toBe(false);
    expect(pagerTotal(20, true, 10)).toBe(30);
    expect(pagerTotal(14, false, 10)).toBe(14);
  });

  it('fetches the next 0-based page once the user reaches the last loaded one', () => {
    expect(nextServerPage(1, 0, 10, true)).toBe(0);
    expect(nextServerPage(1, 10, 10, true)).toBe(1);
    expect(nextServerPage(1, 20, 10, true)).toBeUndefined();
    expect(nextServerPage(2, 20, 10, true)).toBe(2);
    expect(nextServerPage(3, 20, 10, true)).toBe(2);
    expect(nextServerPage(2, 14, 10, false)).toBeUndefined();
  });

  it('slices the rows of a 1-based page', () => {
    expect(rowsOfPage(range(0, 25), 3, 10)).toEqual(range(20, 5));
    expect(rowsOfPage(range(0, 20), 3, 10)).toEqual([]);
  });
});
