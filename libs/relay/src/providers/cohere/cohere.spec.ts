import { describe, expect, it } from 'vitest';
import type { RelayChannel } from '@gw/channel';
import * as cohere from '../../../../../test/fixtures/providers/cohere/index.js';
import { NdjsonFramer } from '../ndjson-framer.js';
import { adaptorOf } from '../registry.js';
import type { AdaptorCall } from '../types.js';
import { SseEventReader } from '../sse-events.js';
import { cohereAdaptor, cohereCodec, cohereV2Codec } from './index.js';

const settings = { get: <T>(_key: string) => undefined as T };
const call = (stream = false, other = ''): AdaptorCall => {
  const upstream = { id: 4, type: 34, key: cohere.KEY, baseUrl: '', other };
  return { channel: { id: 4, type: 34, other: '', upstream } as unknown as RelayChannel, model: cohere.MODEL, stream, settings };
};

describe('Cohere adaptor (type 34)', () => {
  it('posts chat v1 to the default base URL with the key as bearer; streams ask for JSON lines', () => {
    expect(adaptorOf(34)).toBe(cohereAdaptor);
    expect(cohereAdaptor.buildChatRequest(call())).toEqual({
      url: 'https://api.cohere.ai/v1/chat',
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${cohere.KEY}` },
    });
    expect(cohereAdaptor.buildChatRequest(call(true)).headers.accept).toBe('application/stream+json');
  });

  it('splits the conversation into message and chat_history with Cohere roles and field names (fixture)', () => {
    expect(cohereCodec.requestFromHub({ model: cohere.MODEL, ...cohere.CHAT_REQUEST }, cohere.MODEL, settings)).toEqual(cohere.CHAT_BODY);
    expect(cohereCodec.requestFromHub({ messages: [{ role: 'user', content: 'x' }] }, cohere.MODEL, settings)).toMatchObject({
      max_tokens: 4000,
    });
  });

  it('reads the answer with its billed units, and the JSON-lines stream whatever the chunking', () => {
    const { response, usage } = cohereCodec.responseToHub(cohere.CHAT_RESPONSE, cohere.MODEL);
    expect(response.choices[0]).toMatchObject({ message: { content: 'Blue.' }, finish_reason: 'stop' });
    expect(usage).toEqual({ promptTokens: 21, completionTokens: 2, cachedTokens: 0 });
    const bytes = Buffer.from(cohere.STREAM);
    for (const size of [1, 13, bytes.length]) {
      const framer = new NdjsonFramer();
      const decoder = cohereCodec.streamDecoder(cohere.MODEL);
      const events = [];
      for (let at = 0; at < bytes.length; at += size) events.push(...framer.push(bytes.subarray(at, at + size)));
      events.push(...framer.end());
      const chunks = events.flatMap((event) => decoder.decode(event));
      expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('Blue.');
      expect(decoder.usage()).toEqual({ promptTokens: 21, completionTokens: 2, cachedTokens: 0 });
    }
    expect(cohereCodec.isErrorBody(cohere.ERROR_BODY)).toBe(true);
  });

  it('sends rerank to /v1/rerank in Cohere terms and answers results with the billed usage when there is one', () => {
    const rerank = cohereAdaptor.endpoints!.rerank!;
    expect(rerank.build(call()).url).toBe('https://api.cohere.ai/v1/rerank');
    expect(rerank.body({ ...cohere.RERANK_REQUEST, return_documents: false, extra: 1 }, cohere.RERANK_MODEL, settings)).toEqual({
      ...cohere.RERANK_REQUEST,
      return_documents: false,
    });
    expect(rerank.answer(cohere.RERANK_RESPONSE)).toEqual({
      response: { id: cohere.RERANK_RESPONSE.id, results: cohere.RERANK_RESPONSE.results },
      usage: undefined,
    });
  });

  it('speaks chat v2 when the channel says v2: OpenAI-like messages, SSE stream, billed units (fixture)', () => {
    const v2 = cohereAdaptor.forModel!(cohere.MODEL, call(false, 'v2').channel);
    expect(v2.format).toBe('cohere_v2');
    expect(cohereAdaptor.forModel!(cohere.MODEL, call().channel)).toBe(cohereAdaptor);
    expect(v2.buildChatRequest(call(false, 'v2')).url).toBe('https://api.cohere.ai/v2/chat');
    expect(cohereV2Codec.requestFromHub({ model: cohere.MODEL, ...cohere.CHAT_REQUEST }, cohere.MODEL, settings)).toEqual(cohere.V2_BODY);
    const { response, usage } = cohereV2Codec.responseToHub(cohere.V2_RESPONSE, cohere.MODEL);
    expect(response.choices[0]).toMatchObject({ message: { content: 'Blue.' }, finish_reason: 'stop' });
    expect(usage).toEqual({ promptTokens: 21, completionTokens: 2, cachedTokens: 0 });
    const decoder = cohereV2Codec.streamDecoder(cohere.MODEL);
    const reader = new SseEventReader();
    const chunks = [...reader.push(cohere.V2_STREAM), ...reader.end()].flatMap((e) => decoder.decode(e));
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('Blue.');
    expect(decoder.usage()).toEqual({ promptTokens: 21, completionTokens: 2, cachedTokens: 0 });
    expect(cohereV2Codec.isErrorBody(cohere.ERROR_BODY)).toBe(true);
    expect(cohereV2Codec.isErrorBody(cohere.V2_RESPONSE)).toBe(false);
  });
});
