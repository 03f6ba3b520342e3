import { describe, expect, it } from 'vitest';
import { isValidUtf8, Utf8Buffer } from './utf8.js';

/** Deterministic, so that a failure repeats. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('Utf8Buffer', () => {
  it('writes what TextEncoder writes, lone surrogates as U+FFFD, and says whether the text was well-formed', () => {
    const random = seededRandom(7);
    const encoder = new TextEncoder();
    const buffer = new Utf8Buffer();
    const texts = ['', 'abc', 'é', '€', '😀', '\ud800', 'a\udc00', '\ud83d\ude00\ud83d', 'x'.repeat(5_000)];
    for (let n = 0; n < 2_000; n++) {
      // Code units from all over the range, with a bias towards surrogates.
      const units = Array.from({ length: Math.floor(random() * 12) }, () =>
        random() < 0.3 ? 0xd800 + Math.floor(random() * 0x800) : Math.floor(random() * 0x10000),
      );
      texts.push(String.fromCharCode(...units));
    }
    for (const text of texts) {
      buffer.write(text);
      expect([...buffer.bytes.subarray(0, buffer.length)], JSON.stringify(text)).toEqual([...encoder.encode(text)]);
      expect(buffer.wellFormed, JSON.stringify(text)).toBe(encodeURIComponentSucceeds(text));
    }
  });
});

/** encodeURIComponent throws on exactly the lone surrogates: an independent well-formedness check. */
function encodeURIComponentSucceeds(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

describe('isValidUtf8', () => {
  const strict = new TextDecoder('utf-8', { fatal: true });
  const isValidByDecoder = (bytes: Uint8Array) => {
    try {
      strict.decode(bytes);
      return true;
    } catch {
      return false;
    }
  };

  it('agrees with a fatal TextDecoder on edge cases and random bytes', () => {
    const cases = [
      [],
      [0x41],
      [0xc2, 0x80],
      [0xc1, 0xbf],
      [0xe0, 0x9f, 0xbf],
      [0xe0, 0xa0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xed, 0x9f, 0xbf],
      [0xef, 0xbb, 0xbf],
      [0xf0, 0x8f, 0xbf, 0xbf],
      [0xf0, 0x90, 0x80, 0x80],
      [0xf4, 0x8f, 0xbf, 0xbf],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf5, 0x80, 0x80, 0x80],
      [0x80],
      [0xe2, 0x82],
      [0xff],
    ].map((bytes) => Uint8Array.from(bytes));
    const random = seededRandom(11);
    for (let n = 0; n < 5_000; n++) {
      // Mostly lead and continuation bytes, where the rules live.
      cases.push(
        Uint8Array.from({ length: 1 + Math.floor(random() * 6) }, () =>
          random() < 0.2 ? Math.floor(random() * 0x80) : 0x80 + Math.floor(random() * 0x80),
        ),
      );
    }
    for (const bytes of cases) expect(isValidUtf8(bytes, 0, bytes.length), `[${bytes.join(', ')}]`).toBe(isValidByDecoder(bytes));
  });

  it('checks only the given range', () => {
    const bytes = Uint8Array.from([0xff, 0x41, 0x42, 0xff]);
    expect(isValidUtf8(bytes, 1, 3)).toBe(true);
    expect(isValidUtf8(bytes, 0, 3)).toBe(false);
  });
});
