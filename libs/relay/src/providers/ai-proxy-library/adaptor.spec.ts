import { describe, expect, it } from 'vitest';
import * as fx from '../../../../../test/fixtures/providers/ai-proxy-library/fixtures.js';
import { decodeStream, NO_SETTINGS, testCall } from '../native/test-call.js';
import { aiProxyLibraryAdaptor } from './index.js';

describe('AI Proxy knowledge base adaptor (type 21)', () => {
  it('asks the library with the Bearer key and the knowledge-base id of the channel', () => {
    const call = testCall(21, 'ap-key', 'gpt-4o-mini', { other: fx.LIBRARY_ID });
    expect(aiProxyLibraryAdaptor.buildChatRequest(call)).toMatchObject({
      url: 'https://up.example/api/library/ask',
      headers: { authorization: 'Bearer ap-key' },
    });
    const body = aiProxyLibraryAdaptor.codec!.requestFromHub(fx.HUB_REQUEST, 'gpt-4o-mini', NO_SETTINGS);
    expect(aiProxyLibraryAdaptor.finishBody!(body, call, true)).toEqual(fx.NATIVE_REQUEST);
  });

  it('appends the reference documents to the answer and the stream, and reads errCode errors', () => {
    expect(aiProxyLibraryAdaptor.codec!.responseToHub(fx.CHAT, 'm').response.choices[0].message.content).toBe(fx.CHAT_TEXT);
    expect(decodeStream(aiProxyLibraryAdaptor.codec!, fx.STREAM).text).toBe(fx.STREAM_TEXT);
    expect(aiProxyLibraryAdaptor.codec!.errorMessage!(fx.ERROR)).toBe('library not found (errCode 10001)');
  });
});
