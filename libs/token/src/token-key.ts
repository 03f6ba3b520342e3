import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Largest multiple of 62 that fits a byte: bytes at or above it are dropped, so every character is equally likely. */
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);
export const KEY_LENGTH = 48;

/** `length` characters from [A-Za-z0-9], from the CSPRNG with rejection sampling (no modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += ALPHABET[byte % ALPHABET.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new token key as stored (without `sk-`); clients use `sk-` + this. */
export function generateTokenKey(): string {
  return randomAlphanumeric(KEY_LENGTH);
}

/** new-api's MaskTokenKey: first 4 + `**********` + last 4; short keys keep less. */
export function maskKey(key: string): string {
  if (!key) return '';
  if (key.length <= 4) return '*'.repeat(key.length);
  if (key.length <= 8) return `${key.slice(0, 2)}****${key.slice(-2)}`;
  return `${key.slice(0, 4)}**********${key.slice(-4)}`;
}

export interface PresentedKey {
  key: string;
  /** `sk-KEY-CHANNELID`: the raw channel part (validated by the caller, who knows the user's role). */
  channel?: string;
}

/**
 * Reads a presented key like new-api: strip `Bearer `, strip `sk-`, split on `-`; the first part is
 * the key, the second (if any) pins a channel. Returns undefined for an empty value.
 */
export function parsePresentedKey(raw: string | undefined): PresentedKey | undefined {
  let value = (raw ?? '').trim();
  value = value.replace(/^bearer(\s+|$)/i, '').trim();
  if (value.startsWith('sk-')) value = value.slice(3);
  if (!value) return undefined;
  const [key, channel] = value.split('-');
  if (!key) return undefined;
  return channel === undefined ? { key } : { key, channel };
}

/** Constant-time equality for two keys (lengths compared first, which leaks only the length). */
export function sameKey(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  // Every character is compared whatever the first difference (no early exit), without the two buffers
  // timingSafeEqual would need on every relay request. Keys are ASCII, so char codes are their bytes.
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
