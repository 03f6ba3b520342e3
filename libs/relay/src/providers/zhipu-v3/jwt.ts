import { createHmac } from 'node:crypto';

/** new-api signs tokens valid for a day; we reuse one until an hour before it expires. */
const LIFETIME_MS = 24 * 3600 * 1000;
const RENEW_BEFORE_MS = 3600 * 1000;
const MAX_CACHED = 1000;

const cache = new Map<string, { token: string; expiresAt: number }>();

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/**
 * Zhipu's v3 API takes a JWT made from the `id.secret` key: HS256 with the extra header `sign_type: SIGN`,
 * claims `api_key` (the id), `exp` and `timestamp` in milliseconds (Zhipu's authentication guide).
 */
export function zhipuToken(key: string, now = Date.now()): string {
  const cached = cache.get(key);
  if (cached && cached.expiresAt - RENEW_BEFORE_MS > now) return cached.token;
  const dot = key.indexOf('.');
  if (dot <= 0 || dot === key.length - 1) throw new Error('invalid Zhipu key: expected id.secret');
  const id = key.slice(0, dot);
  const secret = key.slice(dot + 1);
  const expiresAt = now + LIFETIME_MS;
  const head = base64url(JSON.stringify({ alg: 'HS256', sign_type: 'SIGN' }));
  const claims = base64url(JSON.stringify({ api_key: id, exp: expiresAt, timestamp: now }));
  const signature = createHmac('sha256', secret).update(`${head}.${claims}`).digest('base64url');
  const token = `${head}.${claims}.${signature}`;
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, { token, expiresAt });
  return token;
}
