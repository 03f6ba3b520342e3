import { describe, expect, it } from 'vitest';
import * as fx from '../../../../../test/fixtures/providers/palm/fixtures.js';
import { decodeStream, NO_SETTINGS, scriptedHttp, testCall } from '../native/test-call.js';
import { palmAdaptor } from './index.js';

describe('Google PaLM2 adaptor (type 11)', () => {
  it('calls generateMessage of chat-bison-001 for PaLM-2 with x-goog-api-key, never a key in the URL', () => {
    expect(palmAdaptor.buildChatRequest(testCall(11, 'g-key', 'PaLM-2', { baseUrl: 'https://generativelanguage.googleapis.com' }))).toEqual(
      {
        url: 'https://generativelanguage.googleapis.com/v1beta2/models/chat-bison-001:generateMessage',
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', 'x-goog-api-key': 'g-key' },
      },
    );
  });

  it('builds prompt.context and authored messages', () => {
    expect(palmAdaptor.codec!.requestFromHub(fx.HUB_REQUEST, 'PaLM-2', NO_SETTINGS)).toEqual(fx.NATIVE_REQUEST);
  });

  it('answers a stream request from the whole answer as one chunk, without usage (counted locally)', async () => {
    const { http, sent } = scriptedHttp([{ body: JSON.stringify(fx.CHAT) }]);
    const call = testCall(11, 'g-key', 'PaLM-2', { stream: true });
    const answer = await palmAdaptor.send!(palmAdaptor.buildChatRequest(call), { stream: true }, { call, http });
    expect(sent[0]!.init?.stream).toBe(false);
    const streamed = decodeStream(palmAdaptor.codec!, await answer.text());
    expect(streamed.text).toBe(fx.CHAT_TEXT);
    expect(streamed.usage).toBeUndefined();
    expect(palmAdaptor.codec!.responseToHub(fx.CHAT, 'm')).toMatchObject({
      response: { choices: [{ message: { content: fx.CHAT_TEXT } }] },
    });
    expect(palmAdaptor.codec!.isErrorBody(fx.ERROR)).toBe(true);
  });
});
