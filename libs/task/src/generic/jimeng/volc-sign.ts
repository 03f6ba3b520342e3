import { createHash, createHmac } from 'node:crypto';

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
const sha256Hex = (data: string) => createHash('sha256').update(data).digest('hex');
/** RFC 3986 escaping, as Volcengine's canonical query wants it. */
const rfc3986 = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export interface VolcCredentials {
  accessKey: string;
  secretKey: string;
  region: string;
  service: string;
}

/**
 * Volcengine's request signature (HMAC-SHA256 over a canonical request, the same scheme as AWS SigV4 with
 * Volcengine's names): the headers to send with a JSON POST so the OpenAPI gateway accepts it.
 */
export function volcSignedHeaders(url: URL, body: string, credentials: VolcCredentials, now = new Date()): Record<string, string> {
  const xDate = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const shortDate = xDate.slice(0, 8);
  const payloadHash = sha256Hex(body);
  const signed: Record<string, string> = {
    'content-type': 'application/json',
    host: url.host,
    'x-content-sha256': payloadHash,
    'x-date': xDate,
  };
  const names = Object.keys(signed).sort();
  const query = [...url.searchParams.entries()]
    .map(([key, value]) => `${rfc3986(key)}=${rfc3986(value)}`)
    .sort()
    .join('&');
  const canonical = [
    'POST',
    url.pathname || '/',
    query,
    names.map((name) => `${name}:${signed[name]!.trim()}\n`).join(''),
    names.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${shortDate}/${credentials.region}/${credentials.service}/request`;
  const stringToSign = ['HMAC-SHA256', xDate, scope, sha256Hex(canonical)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(credentials.secretKey, shortDate), credentials.region), credentials.service), 'request');
  const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  return {
    'content-type': 'application/json',
    'x-date': xDate,
    'x-content-sha256': payloadHash,
    authorization: `HMAC-SHA256 Credential=${credentials.accessKey}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`,
  };
}
