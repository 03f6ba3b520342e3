import { beforeAll, describe, expect, it } from 'vitest';
import { encodingFor, TokenCounter } from './token-counter.js';

const counter = new TokenCounter();
beforeAll(() => counter.onModuleInit());

describe('TokenCounter', () => {
  it('picks cl100k for GPT-3.5/GPT-4 and OpenAI embeddings, o200k for newer and unknown models', () => {
    expect(['gpt-3.5-turbo', 'gpt-4', 'gpt-4-turbo', 'gpt-4-0613', 'text-embedding-3-small'].map(encodingFor)).toEqual(
      Array(5).fill('cl100k_base'),
    );
    expect(['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-5', 'o3-mini', 'claude-3-haiku', 'my-model'].map(encodingFor)).toEqual(
      Array(7).fill('o200k_base'),
    );
    // CJK text is where the two encodings differ most.
    expect(counter.countTextTokens('gpt-4o', '你好，世界')).toBe(3);
    expect(counter.countTextTokens('gpt-4', '你好，世界')).toBe(6);
  });

  it('counts plain text, empty text, and special-token lookalikes as text', () => {
    expect(counter.countTextTokens('gpt-4o', 'The quick brown fox jumps over the lazy dog')).toBe(9);
    expect(counter.countTextTokens('gpt-4o', '')).toBe(0);
    expect(counter.countTextTokens('gpt-4o', 'a <|endoftext|> b')).toBe(9);
  });

  it('counts chat messages with new-api framing: +3 per message, +3 per name, +3 for the reply', () => {
    const body = {
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        {
          role: 'user',
          name: 'bob',
          content: [
            { type: 'text', text: 'hello world' },
            { type: 'image_url', image_url: { url: 'http://x' } },
          ],
        },
      ],
    };
    // (3 + 1 + 6) + (3 + 1 + 2 + 3 + 1) + 3
    expect(counter.countPromptTokens('gpt-4o', body)).toBe(23);
  });

  it('counts tools (+8 each) and earlier tool calls', () => {
    const body = {
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Get the weather', parameters: { type: 'object' } } }],
    };
    // (3 + 1 + 0 + 2 + 5) + 3 + (8 + 2 + 3 + 5)
    expect(counter.countPromptTokens('gpt-4o', body)).toBe(32);
  });

  it('counts completion prompts and embedding inputs in every accepted form', () => {
    expect(counter.countPromptTokens('gpt-3.5-turbo-instruct', { prompt: 'hello world' })).toBe(2);
    expect(counter.countPromptTokens('gpt-3.5-turbo-instruct', { prompt: ['hello world', 'user'] })).toBe(3);
    expect(counter.countPromptTokens('text-embedding-3-small', { input: 'hello world' })).toBe(2);
    expect(counter.countPromptTokens('text-embedding-3-small', { input: [1, 2, 3] })).toBe(3);
    expect(
      counter.countPromptTokens('text-embedding-3-small', {
        input: [
          [1, 2],
          [3, 4, 5],
        ],
      }),
    ).toBe(5);
  });

  it('gives 0 for bodies it cannot read instead of throwing, and skips malformed messages', () => {
    for (const body of [null, 'text', 42, [], {}, { input: { a: 1 } }, { prompt: 7 }])
      expect(counter.countPromptTokens('gpt-4o', body)).toBe(0);
    // Only the framing of the one object message and the reply primer: 3 + 3.
    expect(counter.countPromptTokens('gpt-4o', { messages: [null, 5, { role: 7 }] })).toBe(6);
  });

  it('stays linear on a large prompt', () => {
    const text = 'lorem ipsum dolor sit amet '.repeat(40_000);
    const started = performance.now();
    const tokens = counter.countPromptTokens('gpt-4o', { messages: [{ role: 'user', content: text }] });
    expect(tokens).toBeGreaterThan(150_000);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
