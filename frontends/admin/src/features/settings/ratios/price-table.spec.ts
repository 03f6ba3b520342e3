import { describe, expect, it } from 'vitest';
import { isNumeric, modelsWithoutRatio, readMaps, rowProblem, toMaps, toRows, withPrice } from './price-table';

describe('price table', () => {
  const maps = readMaps({
    ModelPrice: '{"mj_imagine": 0.1}',
    ModelRatio: '{"gpt-4o": 1.25, "mj_imagine": 3}',
    CompletionRatio: '{"gpt-4o": 4}',
  });

  it('builds one row per model; a fixed price hides the ratios', () => {
    expect(toRows(maps)).toEqual([
      { name: 'gpt-4o', price: '', ratio: '1.25', completionRatio: '4' },
      { name: 'mj_imagine', price: '0.1', ratio: '', completionRatio: '' },
    ]);
  });

  it('writes rows back to the three maps', () => {
    const rows = toRows(maps);
    rows.push({ name: 'new-model', price: '', ratio: '2', completionRatio: '' });
    expect(toMaps(rows)).toEqual({
      ModelPrice: { mj_imagine: 0.1 },
      ModelRatio: { 'gpt-4o': 1.25, 'new-model': 2 },
      CompletionRatio: { 'gpt-4o': 4 },
    });
  });

  it('accepts numbers only and needs a price or a ratio', () => {
    expect(isNumeric('1.5')).toBe(true);
    expect(isNumeric('-1')).toBe(false);
    expect(isNumeric('1e3')).toBe(false);
    expect(rowProblem({ name: 'x', price: 'abc', ratio: '', completionRatio: '' })).toBe('number');
    expect(rowProblem({ name: 'x', price: '', ratio: '', completionRatio: '1' })).toBe('missing');
    expect(rowProblem({ name: 'x', price: '', ratio: '1', completionRatio: '' })).toBeNull();
    expect(withPrice({ name: 'x', price: '', ratio: '1', completionRatio: '2' }, '0.5')).toEqual({
      name: 'x',
      price: '0.5',
      ratio: '',
      completionRatio: '',
    });
  });

  it('lists enabled models without a price or ratio', () => {
    expect(modelsWithoutRatio(['gpt-4o', 'claude-x', 'mj_imagine', 'claude-x', 'a-model'], maps)).toEqual(['a-model', 'claude-x']);
  });
});
