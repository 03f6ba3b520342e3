import { describe, expect, it } from 'vitest';
import { parsePage, parseZeroBasedPage, toPage } from './pagination.js';

describe('parsePage', () => {
  it('is 1-based with new-api fallbacks for the size', () => {
    expect(parsePage({})).toEqual({ page: 1, pageSize: 10, offset: 0 });
    expect(parsePage({ p: '3', page_size: '20' })).toEqual({ page: 3, pageSize: 20, offset: 40 });
    expect(parsePage({ p: '2', ps: '50' })).toMatchObject({ pageSize: 50, offset: 50 });
    expect(parsePage({ size: '5' })).toMatchObject({ pageSize: 5 });
  });

  it('caps the size at 100 and ignores junk', () => {
    expect(parsePage({ page_size: '1000' }).pageSize).toBe(100);
    expect(parsePage({ p: '-1', page_size: 'abc' })).toEqual({ page: 1, pageSize: 10, offset: 0 });
    expect(parsePage({ p: '0', page_size: '0' })).toEqual({ page: 1, pageSize: 10, offset: 0 });
    expect(parsePage({ p: ['2'], page_size: { a: 1 } })).toEqual({ page: 1, pageSize: 10, offset: 0 });
  });

  it('builds the page shape', () => {
    expect(toPage([1, 2], 12, parsePage({ p: '2', page_size: '2' }))).toEqual({ items: [1, 2], total: 12, page: 2, page_size: 2 });
  });
});

describe('parseZeroBasedPage', () => {
  it('is 0-based with the same sizes as parsePage', () => {
    expect(parseZeroBasedPage({})).toEqual({ page: 0, pageSize: 10, offset: 0 });
    expect(parseZeroBasedPage({ p: '0', page_size: '20' })).toEqual({ page: 0, pageSize: 20, offset: 0 });
    expect(parseZeroBasedPage({ p: '3', page_size: '50' })).toEqual({ page: 3, pageSize: 50, offset: 150 });
    expect(parseZeroBasedPage({ p: '1', page_size: '1000' })).toEqual({ page: 1, pageSize: 100, offset: 100 });
  });

  it('reads a missing, negative or junk p as the first page', () => {
    for (const p of [undefined, '', '-1', 'abc', '1.5', ['2'], { a: 1 }]) {
      expect(parseZeroBasedPage({ p, page_size: '10' }), String(p)).toEqual({ page: 0, pageSize: 10, offset: 0 });
    }
    expect(parseZeroBasedPage({ p: '2', page_size: '0' })).toEqual({ page: 2, pageSize: 10, offset: 20 });
  });
});
