import { describe, expect, it, vi } from 'vitest';
import * as fx from '../../../../../test/fixtures/providers/hunyuan/fixtures.js';
import { decodeStream, NO_SETTINGS, scriptedHttp, testCall } from '../native/test-call.js';
import { hunyuanAdaptor, tc3Authorization } from './index.js';

describe('Tencent Hunyuan adaptor (type 23)', () => {
  it('computes the TC3-HMAC-SHA256 signature of the reference vector', () => {
    const v = fx.SIGNATURE_VECTOR;
    expect(
      tc3Authorization({
        secretId: 'AKIDfixtureSecretId',
        secretKey: 'fixtureSecretKey',
        host: v.host,
        payload: v.payload,
        timestamp: v.timestamp,
      }),
    ).toBe(v.authorization);
  });

  it('sends X-TC-Action/Version/Timestamp and the signature of the exact body to the channel host', async () => {
    vi.useFakeTimers({ now: fx.SIGNATURE_VECTOR.timestamp * 1000 });
    try {
      const { http, sent } = scriptedHttp([{ body: JSON.stringify(fx.CHAT) }]);
      const call = testCall(23, fx.KEY, 'hunyuan-lite', { baseUrl: 'https://hunyuan.tencentcloudapi.com' });
      const body = JSON.parse(fx.SIGNATURE_VECTOR.payload);
      await hunyuanAdaptor.send!(hunyuanAdaptor.buildChatRequest(call), { body }, { call, http });
      expect(sent[0]!.built).toEqual({
        url: 'https://hunyuan.tencentcloudapi.com/',
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          'x-tc-action': 'ChatCompletions',
          'x-tc-version': '2023-09-01',
          'x-tc-timestamp': String(fx.SIGNATURE_VECTOR.timestamp),
          authorization: fx.SIGNATURE_VECTOR.authorization,
        },
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a key that is not AppId|SecretId|SecretKey', async () => {
    const call = testCall(23, 'only|two', 'hunyuan-lite');
    await expect(hunyuanAdaptor.send!(hunyuanAdaptor.buildChatRequest(call), {}, { call, http: scriptedHttp([]).http })).rejects.toThrow(
      /AppId\|SecretId\|SecretKey/,
    );
  });

  it('builds the capitalised body and reads the answer, the stream and the Response.Error body', () => {
    expect(hunyuanAdaptor.codec!.requestFromHub(fx.HUB_REQUEST, 'hunyuan-lite', NO_SETTINGS)).toEqual(fx.NATIVE_REQUEST);
    const { response, usage } = hunyuanAdaptor.codec!.responseToHub(fx.CHAT, 'm');
    expect(response.choices[0].message.content).toBe('Hunyuan says hi.');
    expect(usage).toEqual({ promptTokens: 9, completionTokens: 5, cachedTokens: 0 });
    const streamed = decodeStream(hunyuanAdaptor.codec!, fx.STREAM);
    expect(streamed.text).toBe(fx.STREAM_TEXT);
    expect(streamed.usage).toEqual({ promptTokens: 9, completionTokens: 6, cachedTokens: 0 });
    expect(hunyuanAdaptor.codec!.errorMessage!(fx.ERROR)).toBe(
      'The provided credentials could not be validated. (AuthFailure.SignatureFailure)',
    );
  });
});
