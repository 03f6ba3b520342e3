import { describe, expect, it } from 'vitest';
import { RelayError } from './relay-error.js';
import { parseRelayRequest } from './relay-request.js';

const bad = (kind: 'chat' | 'completions' | 'embeddings', body: unknown) => {
  try {
    parseRelayRequest(kind, '/v1/x', body);
  } catch (error) {
    return error instanceof RelayError ? error.httpStatus : 'other';
  }
  return 'accepted';
};

describe('parseRelayRequest', () => {
  it('answers 400 for anything it cannot route or bill', () => {
    for (const body of [
      null,
      [],
      'x',
      {},
      { model: '' },
      { model: 3, messages: [] },
      { model: 'm', messages: {} },
      { model: 'm', messages: [], stream: 'yes' },
    ]) {
      expect(bad('chat', body), JSON.stringify(body)).toBe(400);
    }
    for (const max of [-1, 1.5, 2 ** 31 * 1e3, '10', Number.NaN])
      expect(bad('chat', { model: 'm', messages: [], max_tokens: max })).toBe(400);
    expect(bad('embeddings', { model: 'm' })).toBe(400);
    expect(bad('completions', { model: 'm' })).toBe(400);
  });

  it('reads stream, include_usage and the max token fields', () => {
    expect(
      parseRelayRequest('chat', '/p', {
        model: ' m ',
        messages: [],
        stream: true,
        stream_options: { include_usage: true },
        max_completion_tokens: 9,
      }),
    ).toMatchObject({
      model: 'm',
      stream: true,
      includeUsage: true,
      maxTokens: 9,
    });
    expect(parseRelayRequest('embeddings', '/p', { model: 'm', input: 'x', stream: true })).toMatchObject({ stream: false, maxTokens: 0 });
  });

  it("gives a stream the usage chunk unless its stream_options turn it off (new-api's default)", () => {
    const includeUsage = (extra: Record<string, unknown>) =>
      parseRelayRequest('chat', '/p', { model: 'm', messages: [], ...extra }).includeUsage;
    expect(includeUsage({ stream: true })).toBe(true);
    expect(includeUsage({ stream: true, stream_options: null })).toBe(true);
    expect(includeUsage({ stream: true, stream_options: {} })).toBe(false);
    expect(includeUsage({ stream: true, stream_options: { include_usage: false } })).toBe(false);
    expect(includeUsage({})).toBe(false);
    expect(parseRelayRequest('completions', '/p', { model: 'm', prompt: 'x', stream: true }).includeUsage).toBe(true);
  });
});
