import { describe, expect, it } from 'vitest';
import { SecretBox } from './secret-box.js';

describe('SecretBox', () => {
  it('seals with a fresh IV each time and opens its own values', () => {
    const box = new SecretBox('crypto-secret', 'purpose');
    const a = box.seal('JBSWY3DPEHPK3PXP');
    const b = box.seal('JBSWY3DPEHPK3PXP');
    expect(a).toMatch(/^enc:v1:/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box.open(a)).toBe('JBSWY3DPEHPK3PXP');
  });

  it('reads a plain legacy value as is, and refuses another key or a tampered value', () => {
    const box = new SecretBox('crypto-secret', 'purpose');
    expect(box.open('PLAINBASE32SECRET')).toBe('PLAINBASE32SECRET');
    const sealed = box.seal('value');
    expect(new SecretBox('other-secret', 'purpose').open(sealed)).toBeUndefined();
    expect(new SecretBox('crypto-secret', 'other-purpose').open(sealed)).toBeUndefined();
    // The second-to-last character replaced by another one (it was kept as it was 1 time in 64 when the choice
    // looked at the last character instead).
    const flipped = `${sealed.slice(0, -2)}${sealed.at(-2) === 'A' ? 'B' : 'A'}${sealed.slice(-1)}`;
    expect(flipped).not.toBe(sealed);
    expect(box.open(flipped)).toBeUndefined();
    expect(box.open('enc:v1:short')).toBeUndefined();
  });
});
