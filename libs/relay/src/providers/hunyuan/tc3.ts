import { createHash, createHmac } from 'node:crypto';

export const HUNYUAN_SERVICE = 'hunyuan';
export const HUNYUAN_VERSION = '2023-09-01';
export const HUNYUAN_ACTION = 'ChatCompletions';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text).digest();

export interface Tc3Input {
  secretId: string;
  secretKey: string;
  host: string;
  payload: string;
  /** Unix seconds. */
  timestamp: number;
  contentType?: string;
}

/**
 * Tencent Cloud API v3 signature (TC3-HMAC-SHA256, Tencent Cloud "Signature v3" guide): a canonical POST to
 * `/` signing content-type and host, the payload's SHA-256, and a key derived per day and service.
 */
export function tc3Authorization(input: Tc3Input): string {
  const contentType = input.contentType ?? 'application/json';
  const date = new Date(input.timestamp * 1000).toISOString().slice(0, 10);
  const signedHeaders = 'content-type;host';
  const canonical = ['POST', '/', '', `content-type:${contentType}\nhost:${input.host}\n`, signedHeaders, sha256(input.payload)].join('\n');
  const scope = `${date}/${HUNYUAN_SERVICE}/tc3_request`;
  const stringToSign = ['TC3-HMAC-SHA256', String(input.timestamp), scope, sha256(canonical)].join('\n');
  const signingKey = hmac(hmac(hmac(`TC3${input.secretKey}`, date), HUNYUAN_SERVICE), 'tc3_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  return `TC3-HMAC-SHA256 Credential=${input.secretId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

/** `AppId|SecretId|SecretKey` (new-api's key format for type 23). */
export function hunyuanKey(key: string): { appId: string; secretId: string; secretKey: string } {
  const [appId, secretId, secretKey, ...extra] = key.split('|').map((part) => part.trim());
  if (!appId || !secretId || !secretKey || extra.length) throw new Error('invalid Tencent key: expected AppId|SecretId|SecretKey');
  return { appId, secretId, secretKey };
}
