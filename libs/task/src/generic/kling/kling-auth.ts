import { createHmac } from 'node:crypto';

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

/**
 * The bearer token Kling wants: an HS256 JWT from the channel key "accessKey|secretKey", valid for 30
 * minutes (5 s early for clock skew). A key starting with "sk-" is another gateway in front of Kling:
 * it is sent as is.
 */
export function klingBearer(key: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const trimmed = key.trim();
  if (trimmed.startsWith('sk-')) return trimmed;
  const [access, secret] = trimmed.split('|').map((part) => part.trim());
  if (!access || !secret) throw new Error('invalid Kling key: the channel key must be accessKey|secretKey');
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = base64url(JSON.stringify({ iss: access, exp: nowSeconds + 1800, nbf: nowSeconds - 5 }));
  const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

/** Another new-api-style gateway serves Kling under /kling. */
export function klingPathPrefix(key: string): string {
  return key.trim().startsWith('sk-') ? '/kling' : '';
}
