import { describe, expect, it } from 'vitest';
import * as fx from '../../../../../test/fixtures/providers/spark/fixtures.js';
import { NO_SETTINGS, testCall } from '../native/test-call.js';
import { SseEventReader } from '../sse-events.js';
import { joinFrames } from './codec.js';
import { sparkAdaptor, sparkSignedUrl } from './index.js';
import { sparkDomain, sparkPath, sparkVersion } from './versions.js';

describe('iFlytek Spark adaptor (type 18)', () => {
  it('signs the WebSocket URL as the reference vector', () => {
    const v = fx.SIGNED_URL_VECTOR;
    expect(sparkSignedUrl(v.base, v.path, 'fixture-api-key', 'fixture-api-secret', new Date(v.date))).toBe(v.url);
  });

  it('takes the version from the model, else the channel, else v2.1, and maps it to domain and path', () => {
    expect(sparkVersion('SparkDesk-v3.5', 'v1.1')).toBe('v3.5');
    expect(sparkVersion('SparkDesk', 'v4.0')).toBe('v4.0');
    expect(sparkVersion('SparkDesk', '')).toBe('v2.1');
    expect(sparkVersion('SparkDesk', '../x')).toBe('v2.1');
    expect([sparkDomain('v2.1'), sparkPath('v2.1')]).toEqual(['generalv2', '/v2.1/chat']);
    expect([sparkDomain('v4.0'), sparkPath('pro-128k')]).toEqual(['4.0Ultra', '/chat/pro-128k']);
    expect(sparkAdaptor.buildChatRequest(testCall(18, fx.KEY, 'SparkDesk', { baseUrl: '' })).url).toBe(
      'https://spark-api.xf-yun.com/v2.1/chat',
    );
  });

  it('builds the request frame with app_id from the key and the domain of the version', () => {
    const call = testCall(18, fx.KEY, 'SparkDesk-v3.5');
    const body = sparkAdaptor.codec!.requestFromHub(fx.HUB_REQUEST, 'SparkDesk-v3.5', NO_SETTINGS);
    expect(sparkAdaptor.finishBody!(body, call, true)).toEqual(fx.NATIVE_REQUEST);
  });

  it('reads frames as a stream (usage of the last) and joined into one answer; error frames carry their code', () => {
    const decoder = sparkAdaptor.codec!.streamDecoder('m');
    const reader = new SseEventReader();
    const events = reader.push(fx.FRAMES.map((f) => `data: ${JSON.stringify(f)}\n\n`).join(''));
    const text = events.flatMap((e) => decoder.decode(e)).map((c) => c.choices[0].delta.content ?? '');
    expect(text.join('')).toBe(fx.TEXT);
    expect(decoder.usage()).toEqual({ promptTokens: 14, completionTokens: 5, cachedTokens: 0 });
    const { response, usage } = sparkAdaptor.codec!.responseToHub(joinFrames(fx.FRAMES), 'm');
    expect(response.choices[0].message.content).toBe(fx.TEXT);
    expect(usage).toEqual({ promptTokens: 14, completionTokens: 5, cachedTokens: 0 });
    expect(sparkAdaptor.codec!.isErrorBody(fx.ERROR_FRAME)).toBe(true);
    expect(sparkAdaptor.codec!.errorMessage!(fx.ERROR_FRAME)).toBe('input content audit failed (code 10013)');
  });

  it('refuses a key that is not APPID|APISecret|APIKey before connecting', async () => {
    const call = testCall(18, 'a|b', 'SparkDesk');
    await expect(
      sparkAdaptor.send!(
        sparkAdaptor.buildChatRequest(call),
        { body: {} },
        { call, http: { sendBuilt: () => Promise.reject(), publicOnlyDispatcher: () => undefined } },
      ),
    ).rejects.toThrow(/APPID\|APISecret\|APIKey/);
  });
});
