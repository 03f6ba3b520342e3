import { createHmac } from 'node:crypto';
import { CHAT, ERROR, KEY, STREAM } from '../../fixtures/providers/zhipu-v3/fixtures.js';
import { type ProviderFake, sendJson, sendText } from './types.js';

/** Checks the JWT as Zhipu would: HS256 over header.claims with the secret, the id in api_key, not expired. */
function validToken(token: string | undefined): boolean {
  const [head, claims, signature] = (token ?? '').split('.');
  if (!head || !claims || !signature) return false;
  const [id, secret] = KEY.split('.');
  if (createHmac('sha256', secret!).update(`${head}.${claims}`).digest('base64url') !== signature) return false;
  const payload = JSON.parse(Buffer.from(claims, 'base64url').toString());
  const header = JSON.parse(Buffer.from(head, 'base64url').toString());
  return header.sign_type === 'SIGN' && payload.api_key === id && payload.exp > Date.now();
}

/** Zhipu v3 model-api: invoke answers JSON, sse-invoke streams add/finish events. */
export const zhipuV3Fake: ProviderFake = {
  name: 'zhipu_v3',
  owns: ({ path }) => path.startsWith('/api/paas/v3/model-api/'),
  answer({ req, res, path, fail }) {
    if (!validToken(req.headers.authorization))
      return sendJson(res, 401, { code: 1002, msg: 'Authorization Token invalid', success: false });
    if (fail) return sendJson(res, 200, ERROR);
    if (path.endsWith('/sse-invoke')) return sendText(res, 'text/event-stream', STREAM);
    sendJson(res, 200, CHAT);
  },
};
