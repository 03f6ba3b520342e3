import { describe, expect, it } from 'vitest';
import { batchNames } from './token-batch';

describe('batchNames', () => {
  it('keeps the typed name for the first token and suffixes the others with 6 random characters', () => {
    const names = batchNames('ci', 10);
    expect(names).toHaveLength(10);
    expect(names[0]).toBe('ci');
    for (const name of names.slice(1)) expect(name).toMatch(/^ci-[A-Za-z0-9]{6}$/);
    expect(new Set(names).size).toBe(10);
  });

  it('creates just the one token by default', () => {
    expect(batchNames('solo', 1)).toEqual(['solo']);
  });
});
