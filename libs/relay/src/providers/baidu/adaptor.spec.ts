import { beforeEach, describe, expect, it } from 'vitest';
import * as fx from '../../../../../test/fixtures/providers/baidu/fixtures.js';
import { decodeStream, NO_SETTINGS, scriptedHttp, testCall } from '../native/test-call.js';
import { baiduAdaptor, clearBaiduTokens } from './index.js';

const KEY = 'fixture-ak|fixture-sk';

describe('Baidu ERNIE v1 adaptor (type 15)', () => {
  beforeEach(() => clearBaiduTokens());

  it('builds the ERNIE body from OpenAI chat (system apart, max_output_tokens at least 2)', () => {
    expect(baiduAdaptor.codec!.requestFromHub(fx.HUB_REQUEST, 'ERNIE-4.0-8K', NO_SETTINGS)).toEqual(fx.NATIVE_REQUEST);
  });

  it('fetches the OAuth token once, then calls the model endpoint with it', async () => {
    const { http, sent } = scriptedHttp([
      { body: JSON.stringify(fx.ACCESS_TOKEN) },
      { body: JSON.stringify(fx.CHAT) },
      { body: JSON.stringify(fx.CHAT) },
    ]);
    const call = testCall(15, KEY, 'ERNIE-4.0-8K');
    for (let i = 0; i < 2; i++) await baiduAdaptor.send!(baiduAdaptor.buildChatRequest(call), { body: {} }, { call, http });
    expect(sent.map((s) => s.built.url)).toEqual([
      'https://up.example/oauth/2.0/token?grant_type=client_credentials&client_id=fixture-ak&client_secret=fixture-sk',
      'https://up.example/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro?access_token=24.fixture-access-token',
      'https://up.example/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro?access_token=24.fixture-access-token',
    ]);
    expect(sent[1]!.built.headers.authorization).toBeUndefined();
  });

  it('refuses a key that is not APIKey|SecretKey and reports a refused token clearly', async () => {
    const call = testCall(15, 'just-one-part', 'ERNIE-4.0-8K');
    const { http } = scriptedHttp([]);
    await expect(baiduAdaptor.send!(baiduAdaptor.buildChatRequest(call), {}, { call, http })).rejects.toThrow(/APIKey\|SecretKey/);
    const refused = scriptedHttp([{ status: 401, body: JSON.stringify(fx.TOKEN_ERROR) }]);
    const good = testCall(15, KEY, 'ERNIE-4.0-8K');
    await expect(baiduAdaptor.send!(baiduAdaptor.buildChatRequest(good), {}, { call: good, http: refused.http })).rejects.toThrow(
      'Baidu access token refused (invalid_client: unknown client id)',
    );
  });

  it('routes embedding models to the embeddings endpoint and reads the answer in input order', () => {
    expect(baiduAdaptor.embeddings!.buildRequest(testCall(15, KEY, 'Embedding-V1')).url).toBe(
      'https://up.example/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/embedding-v1',
    );
    expect(baiduAdaptor.embeddings!.requestFromOpenAi({ input: ['a', 'b'] }, 'Embedding-V1')).toEqual({ input: ['a', 'b'] });
    const { response, usage } = baiduAdaptor.embeddings!.responseToOpenAi(fx.EMBEDDING, 'emb');
    expect(response.data.map((d: { embedding: number[] }) => d.embedding)).toEqual([
      [0.125, 0.75],
      [0.25, -0.5],
    ]);
    expect(usage).toEqual({ promptTokens: 6, completionTokens: 0, cachedTokens: 0 });
  });

  it('reads the answer, the stream (completion = total - prompt) and the 200-status error', () => {
    const { response, usage } = baiduAdaptor.codec!.responseToHub(fx.CHAT, 'm');
    expect(response.choices[0].message.content).toBe('ERNIE says hi.');
    expect(usage).toEqual({ promptTokens: 12, completionTokens: 7, cachedTokens: 0 });
    const streamed = decodeStream(baiduAdaptor.codec!, fx.STREAM);
    expect(streamed.text).toBe(fx.STREAM_TEXT);
    expect(streamed.usage).toEqual({ promptTokens: 12, completionTokens: 9, cachedTokens: 0 });
    expect(streamed.chunks.at(-1)!.choices[0].finish_reason).toBe('stop');
    expect(baiduAdaptor.codec!.isErrorBody(fx.ERROR)).toBe(true);
    expect(baiduAdaptor.codec!.errorMessage!(fx.ERROR)).toBe('the first message must be from the user (error_code 336003)');
  });
});
