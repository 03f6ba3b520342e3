import { describe, expect, it } from 'vitest';
import type { RelayChannel } from '@gw/channel';
import { anthropicAdaptor } from './anthropic/index.js';
import { geminiAdaptor } from './gemini/index.js';
import { adaptorOf } from './registry.js';
import type { AdaptorCall } from './types.js';

const options: Record<string, unknown> = {
  'claude.thinking_adapter_enabled': true,
  'claude.thinking_adapter_budget_tokens_percentage': 0.5,
};
const settings = { get: <T>(key: string) => options[key] as T };

function call(type: number, fields: Partial<RelayChannel['upstream']> = {}, model = 'm'): AdaptorCall {
  const upstream = {
    id: 1,
    type,
    key: 'k',
    baseUrl: 'https://up.example',
    other: '',
    headerOverride: { 'x-extra': 'v-{api_key}' },
    ...fields,
  };
  return { channel: { id: 1, type, other: upstream.other, upstream } as unknown as RelayChannel, model, stream: false, settings };
}

describe('channel adaptors', () => {
  it('registers Claude and Gemini by type, OpenAI-compatible types to the OpenAI adaptor, and nothing for the rest', () => {
    expect(adaptorOf(14)?.format).toBe('anthropic');
    expect(adaptorOf(24)?.format).toBe('gemini');
    expect(adaptorOf(1)?.format).toBe('openai');
    expect(adaptorOf(43)?.format).toBe('openai');
    expect(adaptorOf(2)).toBeUndefined();
  });

  it('builds the Claude call with its key header and the channel header override', () => {
    expect(anthropicAdaptor.buildChatRequest(call(14))).toEqual({
      url: 'https://up.example/v1/messages',
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        'x-api-key': 'k',
        'anthropic-version': '2023-06-01',
        'x-extra': 'v-k',
      },
    });
  });

  it('turns `<model>-thinking` into extended thinking with a share of max_tokens (claude thinking adapter)', () => {
    const body = anthropicAdaptor.finishBody!(
      { model: 'claude-x-thinking', max_tokens: 4000, temperature: 0.3, messages: [] },
      call(14),
      false,
    );
    expect(body).toEqual({ model: 'claude-x', max_tokens: 4000, messages: [], thinking: { type: 'enabled', budget_tokens: 2000 } });
  });

  describe('claude thinking adapter keeps 1024 <= budget_tokens < max_tokens', () => {
    function thought(maxTokens: number, extra: Record<string, unknown> = {}) {
      const adapterCall = { ...call(14), settings: { get: <T>(key: string) => ({ ...options, ...extra })[key] as T } };
      const body = anthropicAdaptor.finishBody!({ model: 'claude-x-thinking', max_tokens: maxTokens, messages: [] }, adapterCall, false);
      return { maxTokens: body.max_tokens, budget: (body.thinking as { budget_tokens: number }).budget_tokens };
    }

    it('raises a small max_tokens to 1280 and gives the smallest budget', () => {
      expect(thought(500)).toEqual({ maxTokens: 1280, budget: 1024 });
      expect(thought(1000)).toEqual({ maxTokens: 1280, budget: 1024 });
      expect(thought(1000, { 'claude.thinking_adapter_budget_tokens_percentage': 0.8 })).toEqual({ maxTokens: 1280, budget: 1024 });
    });

    it('keeps the budget below max_tokens when the share is 1', () => {
      expect(thought(4000, { 'claude.thinking_adapter_budget_tokens_percentage': 1 })).toEqual({ maxTokens: 4000, budget: 3999 });
    });

    it('takes a missing max_tokens from claude.default_max_tokens, else 8192', () => {
      expect(thought(0)).toEqual({ maxTokens: 8192, budget: 4096 });
      expect(thought(0, { 'claude.default_max_tokens': { default: 3000 } })).toEqual({ maxTokens: 3000, budget: 1500 });
      expect(thought(0, { 'claude.default_max_tokens': { 'claude-x-thinking': 600, default: 3000 } })).toEqual({
        maxTokens: 1280,
        budget: 1024,
      });
    });
  });

  it('puts the Gemini model and version in the path, never a version that is not one', () => {
    expect(geminiAdaptor.buildChatRequest(call(24, {}, 'gemini-2.5-flash')).url).toBe(
      'https://up.example/v1beta/models/gemini-2.5-flash:generateContent',
    );
    expect(geminiAdaptor.buildChatRequest(call(24, { other: 'v1' }, 'g')).url).toBe('https://up.example/v1/models/g:generateContent');
    expect(geminiAdaptor.buildChatRequest(call(24, { other: '../../evil' }, 'g')).url).toBe(
      'https://up.example/v1beta/models/g:generateContent',
    );
    expect(geminiAdaptor.buildChatRequest({ ...call(24, {}, 'a/../b'), stream: true }).url).toBe(
      'https://up.example/v1beta/models/a%2F..%2Fb:streamGenerateContent?alt=sse',
    );
    expect(geminiAdaptor.geminiEmbeddings!(call(24, { other: 'v1' }, 'gemini-embedding-001'), false).url).toBe(
      'https://up.example/v1/models/gemini-embedding-001:embedContent',
    );
    expect(geminiAdaptor.geminiEmbeddings!(call(24, {}, 'e'), true)).toMatchObject({
      url: 'https://up.example/v1beta/models/e:batchEmbedContents',
      headers: expect.objectContaining({ 'x-goog-api-key': 'k' }),
    });
    expect(geminiAdaptor.finishBody!({ model: 'g', stream: true, contents: [] }, call(24), false)).toEqual({ contents: [] });
  });
});
