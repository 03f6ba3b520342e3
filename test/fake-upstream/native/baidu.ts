import { ACCESS_TOKEN, CHAT, EMBEDDING, ERROR, STREAM, TOKEN_ERROR } from '../../fixtures/providers/baidu/fixtures.js';
import { type ProviderFake, sendJson, sendText } from './types.js';

export const BAIDU_KEY = 'fixture-ak|fixture-sk';

/** Baidu: the OAuth token endpoint, then ERNIE chat/embeddings only with that token. */
export const baiduFake: ProviderFake = {
  name: 'baidu',
  owns: ({ path }) => path === '/oauth/2.0/token' || path.startsWith('/rpc/2.0/ai_custom/v1/wenxinworkshop/'),
  answer({ res, path, query, body, fail }) {
    if (path === '/oauth/2.0/token') {
      const ok =
        query.get('grant_type') === 'client_credentials' && `${query.get('client_id')}|${query.get('client_secret')}` === BAIDU_KEY;
      return sendJson(res, ok ? 200 : 401, ok ? ACCESS_TOKEN : TOKEN_ERROR);
    }
    if (query.get('access_token') !== ACCESS_TOKEN.access_token)
      return sendJson(res, 200, { error_code: 110, error_msg: 'Access token invalid' });
    if (fail) return sendJson(res, 200, ERROR);
    if (path.includes('/embeddings/')) return sendJson(res, 200, EMBEDDING);
    if (body?.stream) return sendText(res, 'text/event-stream', STREAM);
    sendJson(res, 200, CHAT);
  },
};
