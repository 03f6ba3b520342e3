import { describe, expect, it } from 'vitest';
import { effectiveGroupRatio, firstTokenColor, isPerCallPrice, parseOther, retryChain, useTimeColor } from './log-other';

describe('log other', () => {
  it('parses an object and reads anything else as empty', () => {
    expect(parseOther('{"model_ratio":2.5,"frt":120}')).toEqual({ model_ratio: 2.5, frt: 120 });
    expect(parseOther('')).toEqual({});
    expect(parseOther('not json')).toEqual({});
    expect(parseOther('[1,2]')).toEqual({});
    expect(parseOther('null')).toEqual({});
  });

  it('colours use time and first-token time at the spec thresholds', () => {
    expect([0, 100, 101, 299, 300].map(useTimeColor)).toEqual(['green', 'green', 'orange', 'orange', 'red']);
    expect([0, 2.9, 3, 9.9, 10].map(firstTokenColor)).toEqual(['green', 'green', 'orange', 'orange', 'red']);
  });

  it('shows a retry chain only when more than one channel was tried', () => {
    expect(retryChain({ admin_info: { use_channel: ['3'] } })).toEqual([]);
    expect(retryChain({ admin_info: { use_channel: ['3', 5] } })).toEqual(['3', '5']);
    expect(retryChain({})).toEqual([]);
  });

  it('tells per-call prices from per-token rows and picks the user group ratio when set', () => {
    expect(isPerCallPrice({ model_price: -1 })).toBe(false);
    expect(isPerCallPrice({ model_price: 0.02 })).toBe(true);
    expect(isPerCallPrice({})).toBe(false);
    expect(effectiveGroupRatio({ group_ratio: 1.5, user_group_ratio: -1 })).toBe(1.5);
    expect(effectiveGroupRatio({ group_ratio: 1.5, user_group_ratio: 0.8 })).toBe(0.8);
  });
});
