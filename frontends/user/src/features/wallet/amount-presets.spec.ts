import { describe, expect, it } from 'vitest';
import { amountPresets } from './amount-presets';

describe('amount presets', () => {
  it('uses the server list when it has one, else multiples of the minimum', () => {
    expect(amountPresets({ amount_options: [10, 20], min_topup: 1 })).toEqual([10, 20]);
    expect(amountPresets({ amount_options: [], min_topup: 2 })).toEqual([2, 10, 20, 60, 100, 200]);
    expect(amountPresets({ amount_options: [], min_topup: 0 })).toEqual([1, 5, 10, 30, 50, 100]);
    expect(amountPresets({ amount_options: [-1, 1.5], min_topup: 1.2 })).toEqual([2, 10, 20, 60, 100, 200]);
  });
});
