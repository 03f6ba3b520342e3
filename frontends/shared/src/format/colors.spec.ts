import { describe, expect, it } from 'vitest';
import { groupColor, ratioColor } from './colors';

describe('colours', () => {
  it('colours ratios: up to 1 green, over 1 blue, over 3 orange, over 5 red', () => {
    expect([0.5, 1, 1.5, 3, 3.5, 5, 5.5].map(ratioColor)).toEqual(['green', 'green', 'blue', 'blue', 'orange', 'orange', 'red']);
  });

  it('gives a group the same colour every time, and different groups different colours', () => {
    expect(groupColor('vip')).toBe(groupColor('vip'));
    const colours = new Set(['default', 'vip', 'svip', 'free', 'test'].map(groupColor));
    expect(colours.size).toBeGreaterThan(1);
  });
});
