import { describe, expect, it } from 'vitest';
import { add, dec, mul, roundToInteger } from './exact-decimal.js';

describe('exact decimals', () => {
  it('reads numbers by their shortest text, exponents included', () => {
    expect(dec(0.075)).toEqual({ units: 75n, scale: 3 });
    expect(dec(1e-7)).toEqual({ units: 1n, scale: 7 });
    expect(dec(1.5e21)).toEqual({ units: 1500000000000000000000n, scale: 0 });
    expect(dec(-2)).toEqual({ units: -2n, scale: 0 });
    expect(() => dec(Number.NaN)).toThrow(RangeError);
  });

  it('multiplies and adds without binary drift, and rounds half away from zero', () => {
    expect(roundToInteger(mul(dec(100), dec(0.145)))).toBe(15); // doubles: 14.499999999999998
    expect(roundToInteger(add(mul(dec(0.1), dec(3)), dec(0.2)))).toBe(1); // 0.5 exactly
    expect(roundToInteger(mul(dec(-2.5), dec(1)))).toBe(-3);
    expect(roundToInteger(dec(2.4999))).toBe(2);
  });
});
