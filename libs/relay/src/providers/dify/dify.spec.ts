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

  const decodeAll = (stream: string, debug?: boolean) => {
    const decoder = difyCodec.streamDecoder('my-app', debug === undefined ? undefined : { ...settings, difyDebug: debug });
    const reader = new SseEventReader();
    const chunks = [...reader.push(stream), ...reader.end()].flatMap((event) => decoder.decode(event));
    const join = (field: 'content' | 'reasoning_content') => chunks.map((c) => c.choices[0].delta[field] ?? '').join('');
    return { decoder, chunks, text: join('content'), reasoning: join('reasoning_content') };
  };

  it('decodes the streaming events: answer chunks, bookkeeping skipped, usage from message_end, error events fail', () => {
    const { decoder, chunks, text, reasoning } = decodeAll(dify.STREAM, false);
    expect(text).toBe(dify.STREAM_TEXT);
    expect(reasoning).toBe('');
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe('stop');
    expect(decoder.usage()).toEqual({ promptTokens: 1033, completionTokens: 128, cachedTokens: 0 });
    const failing = difyCodec.streamDecoder('my-app');
    expect(() => new SseEventReader().push(dify.STREAM_ERROR).flatMap((e) => failing.decode(e))).toThrow('App unavailable');
  });

  it("with DIFY_DEBUG (new-api's default) shows workflow and node events as reasoning lines, one completion token each", () => {
    for (const debug of [true, undefined]) {
      const { decoder, text, reasoning } = decodeAll(dify.STREAM, debug);
      expect(text).toBe(dify.STREAM_TEXT);
      expect(reasoning).toBe('Workflow: wf\nNode: llm succeeded\n');
      expect(decoder.usage()).toEqual({ promptTokens: 1033, completionTokens: 130, cachedTokens: 0 });
    }
    // No usage from the app: the local count of what was delivered stands (FormatStream), nothing is added here.
    expect(decodeAll(dify.STREAM.replace(/data: \{"event":"message_end".*\n\n/, '')).decoder.usage()).toBeUndefined();
  });

  it("turns a thinking model's HTML reasoning wrapper into think tags, as new-api does", () => {
    const frame = (answer: string) => `data: ${JSON.stringify({ event: 'message', message_id: 'm', answer })}\n\n`;
    const stream = [
      frame(
        '<details style="color:gray;background-color: #f8f8f8;padding: 8px;border-radius: 4px;" open> <summary> Thinking... </summary>\n',
      ),
      frame('hmm'),
      frame('</details>'),
      frame('Hi'),
    ].join('');
    expect(decodeAll(stream).text).toBe('<think>hmm</think>Hi');
  });
});
