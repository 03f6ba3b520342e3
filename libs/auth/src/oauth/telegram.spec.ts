import { describe, expect, it } from 'vitest';
import { telegramHash, verifyTelegram } from './telegram.js';

const TOKEN = '123456:ABC-test-token';
const now = 1_800_000_000;
const signed = (data: Record<string, string>) => ({ ...data, hash: telegramHash(data, TOKEN) });

describe('telegram login hash', () => {
  const base = { id: '42', first_name: 'Ann', username: 'ann', auth_date: String(now - 60) };
  it('accepts a valid payload', () => expect(verifyTelegram(signed(base), TOKEN, now)).toBe(true));
  it('ignores unsigned extra fields', () => expect(verifyTelegram({ ...signed(base), lang: 'en' }, TOKEN, now)).toBe(true));
  it('rejects a forged hash', () => expect(verifyTelegram({ ...base, hash: 'a'.repeat(64) }, TOKEN, now)).toBe(false));
  it('rejects a changed id', () => expect(verifyTelegram({ ...signed(base), id: '43' }, TOKEN, now)).toBe(false));
  it('rejects an old auth_date', () => {
    const old = { ...base, auth_date: String(now - 86_401) };
    expect(verifyTelegram(signed(old), TOKEN, now)).toBe(false);
  });
  it('rejects another bot token and missing fields', () => {
    expect(verifyTelegram(signed(base), 'other', now)).toBe(false);
    expect(verifyTelegram({ ...base }, TOKEN, now)).toBe(false);
    expect(verifyTelegram(signed(base), '', now)).toBe(false);
  });
});
