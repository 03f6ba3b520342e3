import { describe, expect, it } from 'vitest';
import { BytePairMerger } from './byte-pair-merge.js';
import { RankIndex } from './rank-index.js';

/** A toy vocabulary: the index of each byte string is its rank. */
function mergerFor(vocabulary: (string | number[])[]): BytePairMerger {
  const tokens = vocabulary.map((token) => (typeof token === 'string' ? new TextEncoder().encode(token) : Uint8Array.from(token)));
  const offsets = new Uint32Array(tokens.length + 1);
  tokens.forEach((token, rank) => {
    offsets[rank + 1] = offsets[rank] + token.length;
  });
  const tokenBytes = new Uint8Array(offsets[tokens.length]);
  tokens.forEach((token, rank) => {
    tokenBytes.set(token, offsets[rank]);
  });
  return new BytePairMerger(new RankIndex(tokenBytes, offsets));
}

const countParts = (merger: BytePairMerger, bytes: string | number[]) => {
  const input = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : Uint8Array.from(bytes);
  return merger.countParts(input, input.length);
};

describe('BytePairMerger', () => {
  it('merges the leftmost of equally ranked pairs first', () => {
    // Leftmost: [aa][a][b], and neither "aaa" nor "ab" is a token. Rightmost would give [a][aab].
    expect(countParts(mergerFor(['a', 'b', 'aa', 'aab']), 'aaab')).toBe(3);
  });

  it('merges the lowest rank first', () => {
    // "bc" ranks below "ab": [a][bc][d], then [a][bcd].
    expect(countParts(mergerFor(['a', 'b', 'c', 'd', 'bc', 'ab', 'bcd']), 'abcd')).toBe(2);
    // "ab" ranks below "bc": [ab][c][d], and neither "abc" nor "cd" is a token.
    expect(countParts(mergerFor(['a', 'b', 'c', 'd', 'ab', 'bc', 'bcd']), 'abcd')).toBe(3);
  });

  it('keeps merging the merged parts, on long input too', () => {
    const merger = mergerFor(['a', 'aa', 'aaaa']);
    expect(countParts(merger, 'a'.repeat(10))).toBe(3);
    expect(countParts(merger, 'a'.repeat(100_001))).toBe(25_001);
    expect(countParts(merger, '')).toBe(0);
    expect(countParts(merger, 'a')).toBe(1);
  });

  it('looks a candidate that is a byte order mark plus valid UTF-8 up without the mark, as gpt-tokenizer does', () => {
    const vocabulary = [[0xef], [0xbb], [0xbf], 'A', [0xef, 0xbb], [0xbf, 0x41]];
    // [EF BB][BF 41], then EF BB BF 41 is valid UTF-8 and found as "A".
    expect(countParts(mergerFor(vocabulary), [0xef, 0xbb, 0xbf, 0x41])).toBe(1);
    // Invalid UTF-8 after the mark: looked up as is, and not a token.
    expect(countParts(mergerFor([...vocabulary, [0xbf, 0xff]]), [0xef, 0xbb, 0xbf, 0xff])).toBe(2);
  });
});
