import { describe, expect, it } from 'vitest';
import { geminiEmbeddingBody } from './gemini-embeddings.js';
import { MAX_BATCH_EMBED_REQUESTS } from './gemini-embed-request.js';
import { RelayError } from './relay-error.js';
import { parseRelayRequest } from './relay-request.js';

const parse = (body: unknown, batch = false) => parseRelayRequest('gemini_embeddings', '/v1beta/models/e:x', body, { model: 'e', batch });
const status = (body: unknown, batch = false) => {
  try {
    parse(body, batch);
    return 'accepted';
  } catch (error) {
    return error instanceof RelayError ? error.httpStatus : 'other';
  }
};

describe('Gemini embedContent / batchEmbedContents requests', () => {
  it('counts the texts as new-api does: parts joined by newlines, then requests joined by newlines', () => {
    const single = parse({ content: { parts: [{ text: 'a' }, { inlineData: {} }, { text: 'b' }] } });
    expect(single).toMatchObject({
      kind: 'gemini_embeddings',
      format: 'gemini',
      model: 'e',
      stream: false,
      hub: { model: 'e', input: 'a\nb' },
    });
    const batch = parse(
      { requests: [{ content: { parts: [{ text: 'a' }, { text: 'b' }] } }, { content: { parts: [{ text: 'c' }] } }] },
      true,
    );
    expect(batch.hub.input).toBe('a\nb\nc');
    expect(batch.batch).toBe(true);
  });

  it('answers 400 for a body it cannot pass on', () => {
    for (const body of [
      null,
      [],
      {},
      { content: [] },
      { content: { parts: [] } },
      { content: { parts: [1] } },
      { content: { parts: [{ text: {} }] } },
    ])
      expect(status(body), JSON.stringify(body)).toBe(400);
    for (const body of [
      {},
      { requests: [] },
      { requests: [{}] },
      { requests: Array(MAX_BATCH_EMBED_REQUESTS + 1).fill({ content: { parts: [{ text: 'x' }] } }) },
    ])
      expect(status(body, true)).toBe(400);
    expect(status({ content: { parts: [{ text: 'x' }] }, outputDimensionality: 1.5 })).toBe(400);
    expect(parseRelayRequest.bind(null, 'gemini_embeddings', '/p', { content: { parts: [{ text: 'x' }] } }, {})).toThrow(RelayError);
  });

  it('sets models/{upstream} on the body, or on every request of a batch', () => {
    expect(geminiEmbeddingBody({ content: {}, model: 'models/alias' }, 'up', false)).toEqual({ content: {}, model: 'models/up' });
    expect(geminiEmbeddingBody({ requests: [{ content: {} }, { model: 'x' }] }, 'up', true)).toEqual({
      requests: [{ content: {}, model: 'models/up' }, { model: 'models/up' }],
    });
  });
});
