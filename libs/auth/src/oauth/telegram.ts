import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The fields the Telegram login widget signs. */
export const TELEGRAM_FIELDS = ['id', 'first_name', 'last_name', 'username', 'photo_url', 'auth_date'] as const;
export const TELEGRAM_MAX_AGE_SECONDS = 24 * 3600;

export function telegramDataCheckString(data: Record<string, unknown>): string {
  return TELEGRAM_FIELDS.filter((key) => typeof data[key] === 'string' && data[key] !== '')
    .sort()
    .map((key) => `${key}=${data[key] as string}`)
    .join('\n');
}

export function telegramHash(data: Record<string, unknown>, botToken: string): string {
  const secret = createHash('sha256').update(botToken).digest();
  return createHmac('sha256', secret).update(telegramDataCheckString(data)).digest('hex');
}

/** Verifies a Telegram login payload: HMAC-SHA256 with SHA256(bot token), constant-time, auth_date ≤ 1 day old. */
export function verifyTelegram(data: Record<string, unknown>, botToken: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  if (!botToken || typeof data.hash !== 'string' || !/^[0-9a-f]{64}$/i.test(data.hash)) return false;
  if (typeof data.id !== 'string' || !/^\d{1,20}$/.test(data.id)) return false;
  const authDate = typeof data.auth_date === 'string' && /^\d{1,12}$/.test(data.auth_date) ? Number(data.auth_date) : NaN;
  if (!Number.isFinite(authDate) || nowSeconds - authDate > TELEGRAM_MAX_AGE_SECONDS || authDate - nowSeconds > 300) return false;
  const expected = Buffer.from(telegramHash(data, botToken), 'hex');
  const given = Buffer.from(data.hash, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
