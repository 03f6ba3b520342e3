import { createHmac } from 'node:crypto';

/** `APPID|APISecret|APIKey` (new-api's key format for type 18). */
export function sparkKey(key: string): { appId: string; apiSecret: string; apiKey: string } {
  const [appId, apiSecret, apiKey, ...extra] = key.split('|').map((part) => part.trim());
  if (!appId || !apiSecret || !apiKey || extra.length) throw new Error('invalid iFlytek key: expected APPID|APISecret|APIKey');
  return { appId, apiSecret, apiKey };
}

/**
 * iFlytek's signed WebSocket URL (Spark WebSocket reference, "接口鉴权"): HMAC-SHA256 with the APISecret over
 * `host: …\ndate: …\nGET {path} HTTP/1.1`, wrapped in a base64 `authorization` with the APIKey, and sent with
 * the date and host as query parameters.
 */
export function sparkSignedUrl(base: string, path: string, apiKey: string, apiSecret: string, date = new Date()): string {
  const url = new URL(`${base}${path}`);
  const rfc1123 = date.toUTCString();
  const origin = `host: ${url.host}\ndate: ${rfc1123}\nGET ${url.pathname} HTTP/1.1`;
  const signature = createHmac('sha256', apiSecret).update(origin).digest('base64');
  const authorization = Buffer.from(
    `api_key="${apiKey}", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`,
  ).toString('base64');
  url.search = new URLSearchParams({ authorization, date: rfc1123, host: url.host }).toString();
  return url.toString();
}
