import { createHash, createHmac } from 'node:crypto';
import { CHAT, ERROR, KEY, STREAM } from '../../fixtures/providers/hunyuan/fixtures.js';
import { type ProviderFake, sendJson, sendText } from './types.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Recomputes the TC3 signature from what arrived (host, content type, raw body), step by step as Tencent's guide. */
function validSignature(headers: Record<string, string | string[] | undefined>, raw: string): boolean {
  const [, secretId, secretKey] = KEY.split('|');
  const timestamp = String(headers['x-tc-timestamp'] ?? '');
  const date = new Date(Number(timestamp) * 1000).toISOString().slice(0, 10);
  const canonical = `POST\n/\n\ncontent-type:${headers['content-type']}\nhost:${headers.host}\n\ncontent-type;host\n${sha256(raw)}`;
  const scope = `${date}/hunyuan/tc3_request`;
  const toSign = `TC3-HMAC-SHA256\n${timestamp}\n${scope}\n${sha256(canonical)}`;
  const kDate = createHmac('sha256', `TC3${secretKey}`).update(date).digest();
  const kService = createHmac('sha256', kDate).update('hunyuan').digest();
  const kSigning = createHmac('sha256', kService).update('tc3_request').digest();
  const signature = createHmac('sha256', kSigning).update(toSign).digest('hex');
  return (
    headers.authorization === `TC3-HMAC-SHA256 Credential=${secretId}/${scope}, SignedHeaders=content-type;host, Signature=${signature}`
  );
}

/** Tencent Hunyuan: POST / with X-TC-Action ChatCompletions and a valid TC3 signature. */
export const hunyuanFake: ProviderFake = {
  name: 'hunyuan',
  owns: ({ req, path }) => path === '/' && req.headers['x-tc-action'] === 'ChatCompletions',
  answer({ req, res, raw, body, fail }) {
    if (req.headers['x-tc-version'] !== '2023-09-01' || !validSignature(req.headers, raw) || fail) return sendJson(res, 200, ERROR);
    if (body?.Stream) return sendText(res, 'text/event-stream', STREAM);
    sendJson(res, 200, CHAT);
  },
};
