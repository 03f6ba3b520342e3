import { describe, expect, it } from 'vitest';
import { findUsageInJson, readUsage } from './usage.js';

describe('findUsageInJson', () => {
  it('reads the last usage object without being fooled by strings that mention usage', () => {
    const body = JSON.stringify({
      choices: [{ message: { content: 'the "usage": {"prompt_tokens": 999} is quoted here } {' } }],
      usage: { prompt_tokens: 12, completion_tokens: 34, prompt_tokens_details: { cached_tokens: 5 } },
    });
    expect(findUsageInJson(body)).toEqual({ promptTokens: 12, completionTokens: 34, cachedTokens: 5 });
  });

  it('returns undefined when there is no usage or it is null/empty', () => {
    expect(findUsageInJson('{"choices":[]}')).toBeUndefined();
    expect(findUsageInJson('{"usage":null}')).toBeUndefined();
    expect(findUsageInJson('{"usage":{"prompt_tokens":0,"completion_tokens":0}}')).toBeUndefined();
  });
});

describe('readUsage', () => {
  it("reads DeepSeek's top-level prompt cache hits and keeps reasoning inside the completion tokens", () => {
    const deepseek = {
      prompt_tokens: 30,
      completion_tokens: 120,
      prompt_cache_hit_tokens: 20,
      prompt_cache_miss_tokens: 10,
      completion_tokens_details: { reasoning_tokens: 80 },
    };
    expect(readUsage(deepseek)).toEqual({ promptTokens: 30, completionTokens: 120, cachedTokens: 20 });
    // The OpenAI-style details win when both are present.
    expect(readUsage({ ...deepseek, prompt_tokens_details: { cached_tokens: 5 } })?.cachedTokens).toBe(5);
  });

  it('reads input image tokens from the details, never more than the prompt', () => {
    expect(readUsage({ prompt_tokens: 1000, completion_tokens: 5, prompt_tokens_details: { image_tokens: 600 } })).toEqual({
      promptTokens: 1000,
      completionTokens: 5,
      cachedTokens: 0,
      imageTokens: 600,
    });
    // gpt-image-1's images answer: input_tokens_details.
    expect(
      readUsage({ input_tokens: 50, output_tokens: 4160, input_tokens_details: { text_tokens: 10, image_tokens: 90 } })?.imageTokens,
    ).toBe(50);
  });

  it('never lets cached tokens exceed the prompt and drops garbage', () => {
    expect(readUsage({ prompt_tokens: 3, completion_tokens: 'x', prompt_tokens_details: { cached_tokens: 9 } })).toEqual({
      promptTokens: 3,
      completionTokens: 0,
      cachedTokens: 3,
    });
    expect(readUsage({ prompt_tokens: Number.NaN, completion_tokens: 2.7 })).toEqual({
      promptTokens: 0,
      completionTokens: 2,
      cachedTokens: 0,
    });
  });
});
