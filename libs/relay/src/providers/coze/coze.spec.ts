import { describe, expect, it } from 'vitest';
import type { RelayChannel } from '@gw/channel';
import * as coze from '../../../../../test/fixtures/providers/coze/index.js';
import { adaptorOf } from '../registry.js';
import { SseEventReader } from '../sse-events.js';
import { aggregateStream } from '../stream-aggregate.js';
import type { AdaptorCall } from '../types.js';
import { cozeAdaptor, cozeCodec } from './index.js';

const settings = { get: <T>(_key: string) => undefined as T };
const call = (other = coze.BOT_ID): AdaptorCall => {
  const upstream = { id: 5, type: 49, key: coze.TOKEN, baseUrl: '', other };
  return { channel: { id: 5, type: 49, other, upstream } as unknown as RelayChannel, model: 'my-bot', stream: false, settings };
};
const events = (text: string) => {
  const reader = new SseEventReader();
  return [...reader.push(text), ...reader.end()];
};

describe('Coze adaptor (type 49)', () => {
  it('posts chat v3 to the default base URL, streamed, with the token as bearer and the bot of `other` (fixture)', () => {
    expect(adaptorOf(49)).toBe(cozeAdaptor);
    expect(cozeAdaptor.buildChatRequest(call())).toEqual({
      url: `https://api.coze.cn${coze.PATH}`,
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${coze.TOKEN}` },
    });
    const body = cozeCodec.requestFromHub({ model: 'my-bot', ...coze.CHAT_REQUEST }, 'my-bot', settings);
    expect(cozeAdaptor.finishBody!(body, call(), true)).toEqual(coze.CHAT_BODY);
    expect(cozeAdaptor.finishBody!(body, call(''), true)).toMatchObject({ bot_id: 'my-bot' });
  });

  it('reads answer deltas only (not completed or follow-up messages) and the usage of chat.completed', () => {
    const decoder = cozeCodec.streamDecoder('my-bot');
    const chunks = events(coze.STREAM).flatMap((e) => decoder.decode(e));
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe(coze.STREAM_TEXT);
    expect(decoder.usage()).toEqual({ promptTokens: 380, completionTokens: 18, cachedTokens: 0 });
    const whole = aggregateStream(cozeCodec.streamDecoder('my-bot'), events(coze.STREAM), 'my-bot');
    expect(whole.response.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: coze.STREAM_TEXT },
      finish_reason: 'stop',
    });
    expect(whole.usage).toEqual({ promptTokens: 380, completionTokens: 18, cachedTokens: 0 });
  });

  it('fails on chat.failed and on error answers', () => {
    const decoder = cozeCodec.streamDecoder('my-bot');
    expect(() => events(coze.STREAM_FAILED).flatMap((e) => decoder.decode(e))).toThrow('not published');
    expect(cozeCodec.isErrorBody(coze.ERROR_BODY)).toBe(true);
  });
});
