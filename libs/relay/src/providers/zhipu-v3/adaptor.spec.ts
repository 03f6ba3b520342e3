import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as fx from '../../../../../test/fixtures/providers/zhipu-v3/fixtures.js';
import { decodeStream, NO_SETTINGS, testCall } from '../native/test-call.js';
import { zhipuToken, zhipuV3Adaptor } from './index.js';

describe('Zhipu v3 adaptor (type 16)', () => {
  it('signs an HS256 JWT with sign_type SIGN and millisecond claims from id.secret', () => {
    const now = 1732262414000;
    const [head, claims, signature] = zhipuToken('jwt-id.jwt-secret', now).split('.');
    expect(JSON.parse(Buffer.from(head!, 'base64url').toString())).toEqual({ alg: 'HS256', sign_type: 'SIGN' });
    expect(JSON.parse(Buffer.from(claims!, 'base64url').toString())).toEqual({ api_key: 'jwt-id', exp: now + 86400000, timestamp: now });
    expect(signature).toBe(createHmac('sha256', 'jwt-secret').update(`${head}.${claims}`).digest('base64url'));
    expect(() => zhipuToken('no-secret')).toThrow(/id\.secret/);
  });

  it('calls invoke or sse-invoke of the model with the bare JWT in Authorization', () => {
    const plain = zhipuV3Adaptor.buildChatRequest(testCall(16, fx.KEY, 'chatglm_std'));
    expect(plain.url).toBe('https://up.example/api/paas/v3/model-api/chatglm_std/invoke');
    expect(plain.headers.authorization).toBe(zhipuToken(fx.KEY));
    expect(zhipuV3Adaptor.buildChatRequest(testCall(16, fx.KEY, 'chatglm_std', { stream: true })).url).toBe(
      'https://up.example/api/paas/v3/model-api/chatglm_std/sse-invoke',
    );
  });

  it('builds the v3 prompt (system as an acknowledged user turn, top_p below 1)', () => {
    expect(zhipuV3Adaptor.codec!.requestFromHub(fx.HUB_REQUEST, 'chatglm_std', NO_SETTINGS)).toEqual(fx.NATIVE_REQUEST);
  });

  it('reads the quoted answer, the add/finish stream with usage in meta, and success:false errors', () => {
    const { response, usage } = zhipuV3Adaptor.codec!.responseToHub(fx.CHAT, 'm');
    expect(response.choices[0].message.content).toBe(fx.CHAT_TEXT);
    expect(usage).toEqual({ promptTokens: 11, completionTokens: 6, cachedTokens: 0 });
    const streamed = decodeStream(zhipuV3Adaptor.codec!, fx.STREAM);
    expect(streamed.text).toBe(fx.STREAM_TEXT);
    expect(streamed.usage).toEqual({ promptTokens: 11, completionTokens: 9, cachedTokens: 0 });
    expect(() => decodeStream(zhipuV3Adaptor.codec!, 'event:error\ndata:quota exhausted\n\n')).toThrow('quota exhausted');
    expect(zhipuV3Adaptor.codec!.isErrorBody(fx.ERROR)).toBe(true);
    expect(zhipuV3Adaptor.codec!.errorMessage!(fx.ERROR)).toBe('Prompt is too long (code 1261)');
  });
});
