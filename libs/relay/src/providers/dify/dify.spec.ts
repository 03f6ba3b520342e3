import { describe, expect, it } from 'vitest';
import type { RelayChannel } from '@gw/channel';
import * as dify from '../../../../../test/fixtures/providers/dify/index.js';
import { adaptorOf, codecOf } from '../registry.js';
import { SseEventReader } from '../sse-events.js';
import type { AdaptorCall } from '../types.js';
import { difyAdaptor, difyCodec } from './index.js';

const settings = { get: <T>(_key: string) => undefined as T };
const call = (stream = false): AdaptorCall => {
  const upstream = { id: 3, type: 37, key: dify.KEY, baseUrl: 'https://dify.example', other: '' };
  return { channel: { id: 3, type: 37, other: '', upstream } as unknown as RelayChannel, model: 'my-app', stream, settings };
};

describe('Dify adaptor (type 37)', () => {
  it('posts to the chat app with the app key as bearer', () => {
    expect(adaptorOf(37)).toBe(difyAdaptor);
    expect(codecOf('dify')).toBe(difyCodec);
    expect(difyAdaptor.buildChatRequest(call())).toEqual({
      url: `https://dify.example${dify.PATH}`,
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${dify.KEY}` },
    });
  });

  it('turns the conversation into one query with role headings, the user and the response mode (fixture)', () => {
    expect(difyCodec.requestFromHub({ model: 'my-app', ...dify.CHAT_REQUEST }, 'my-app', settings)).toEqual(dify.BLOCKING_BODY);
    const streamed = difyCodec.requestFromHub(
      {
        model: 'my-app',
        stream: true,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image_url', image_url: { url: 'https://img.example/a.png' } },
            ],
          },
        ],
      },
      'my-app',
      settings,
    );
    expect(streamed).toMatchObject({
      response_mode: 'streaming',
      user: 'new-api',
      query: 'USER: \nsee\n',
      files: [{ type: 'image', transfer_mode: 'remote_url', url: 'https://img.example/a.png' }],
    });
  });

  it('reads the blocking answer and its metadata usage', () => {
    const { response, usage } = difyCodec.responseToHub(dify.BLOCKING_RESPONSE, 'my-app');
    expect(response.choices[0].message).toEqual({ role: 'assistant', content: 'Dify is an LLM app platform.' });
    expect(usage).toEqual({ promptTokens: 1033, completionTokens: 128, cachedTokens: 0 });
    expect(difyCodec.isErrorBody(dify.ERROR_BODY)).toBe(true);
    expect(difyCodec.isErrorBody(dify.BLOCKING_RESPONSE)).toBe(false);
  });

  it('decodes the streaming events: answer chunks, bookkeeping skipped, usage from message_end, error events fail', () => {
    const decoder = difyCodec.streamDecoder('my-app');
    const reader = new SseEventReader();
    const chunks = [...reader.push(dify.STREAM), ...reader.end()].flatMap((event) => decoder.decode(event));
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe(dify.STREAM_TEXT);
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe('stop');
    expect(decoder.usage()).toEqual({ promptTokens: 1033, completionTokens: 128, cachedTokens: 0 });
    const failing = difyCodec.streamDecoder('my-app');
    expect(() => new SseEventReader().push(dify.STREAM_ERROR).flatMap((e) => failing.decode(e))).toThrow('App unavailable');
  });
});
