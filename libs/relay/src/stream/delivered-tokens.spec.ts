import { describe, expect, it } from 'vitest';
import { DeliveredTokens } from './delivered-tokens.js';

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe('DeliveredTokens', () => {
  it('counts the first part exactly, piece by piece', () => {
    const counter = new DeliveredTokens(words);
    counter.add('one two ');
    counter.add('');
    counter.add('three');
    expect(counter.total).toBe(3);
  });

  it('extrapolates past the exact part at the ratio seen, without tokenizing it', () => {
    let tokenized = 0;
    const counter = new DeliveredTokens((text) => {
      tokenized += text.length;
      return words(text);
    });
    const piece = 'ab '.repeat(3_000); // 9,000 characters, 3,000 words: 1/3 token per character
    for (let i = 0; i < 20; i++) counter.add(piece);
    expect(tokenized).toBeLessThan(30_000);
    expect(counter.total).toBe(60_000);
  });

  it('never extrapolates below a token per four characters (a cheap prefix cannot make the rest free)', () => {
    const counter = new DeliveredTokens(() => 0);
    const piece = 'x'.repeat(16 * 1024);
    for (let i = 0; i < 5; i++) counter.add(piece);
    expect(counter.total).toBe(4 * (piece.length / 4)); // the first piece exactly (0), the other four at the floor
  });
});
