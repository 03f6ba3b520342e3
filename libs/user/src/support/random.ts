import { randomBytes, randomInt } from 'node:crypto';

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

export function randomAlnum(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALNUM[randomInt(ALNUM.length)];
  return out;
}

/** 32 URL-safe characters from 24 random bytes; never starts with `sk-` (relay keys). */
export function newAccessToken(): string {
  for (;;) {
    const token = randomBytes(24).toString('base64url');
    if (!token.startsWith('sk-')) return token;
  }
}

export function sixDigitCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}
