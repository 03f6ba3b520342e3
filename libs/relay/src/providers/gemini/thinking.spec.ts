import { describe, expect, it } from 'vitest';
import type { RelayChannel } from '@gw/channel';
import { vertexAdaptor } from '../vertex/index.js';
import { AdaptorRequestError, type AdaptorCall, type Json, type ProviderSettings } from '../types.js';
import { geminiAdaptor, geminiCodec } from './index.js';

const settingsOf = (values: Record<string, unknown>): ProviderSettings => ({ get: <T>(key: string) => values[key] as T });
const off = settingsOf({});
const on = settingsOf({ 'gemini.thinking_adapter_enabled': true, 'gemini.thinking_adapter_budget_tokens_percentage': 0.6 });

/** The thinkingConfig of an OpenAI chat request converted for `model`. */
const converted = (model: string, hub: Json = {}, settings = on) =>
  (geminiCodec.requestFromHub({ messages: [{ role: 'user', content: 'hi' }], ...hub }, model, settings) as Json).generationConfig
    ?.thinkingConfig;

function call(model: string, settings = on, other = ''): AdaptorCall {
  const upstream = { id: 1, type: 24, key: 'k', baseUrl: 'https://up.example', other };
  return { channel: { id: 1, type: 24, other, upstream } as unknown as RelayChannel, model, stream: false, settings };
}

describe('Gemini thinking adapter (new-api gemini.thinking_adapter_enabled)', () => {
  it('sends no thinkingConfig for a reasoning_effort alone, whatever the model (thinking or not)', () => {
    expect(converted('gemini-2.0-flash', { reasoning_effort: 'high' }, off)).toBeUndefined();
    expect(converted('gemini-2.5-flash', { reasoning_effort: 'low' }, off)).toBeUndefined();
    expect(converted('gemini-2.5-flash', { reasoning_effort: 'medium' }, on)).toBeUndefined();
    // Off, a suffix is only a model name.
    expect(converted('gemini-2.5-flash-thinking', { max_tokens: 1000 }, off)).toBeUndefined();
  });

  it('-thinking-<budget>: that budget, kept in the family range', () => {
    expect(converted('gemini-2.5-flash-thinking-1000')).toEqual({ includeThoughts: true, thinkingBudget: 1000 });
    expect(converted('gemini-2.5-flash-thinking-99999')).toEqual({ includeThoughts: true, thinkingBudget: 24576 });
    expect(converted('gemini-2.5-pro-thinking-10')).toEqual({ includeThoughts: true, thinkingBudget: 128 });
    expect(converted('gemini-2.5-pro-thinking-40000')).toEqual({ includeThoughts: true, thinkingBudget: 32768 });
    expect(converted('gemini-2.5-flash-lite-thinking-100')).toEqual({ includeThoughts: true, thinkingBudget: 512 });
    expect(converted('gemini-2.5-flash-thinking-lots')).toBeUndefined();
  });

  it('-thinking: a share of max_tokens, else of the largest budget by reasoning_effort', () => {
    expect(converted('gemini-2.5-flash-thinking', { max_tokens: 1000 })).toEqual({ includeThoughts: true, thinkingBudget: 600 });
    expect(converted('gemini-2.5-flash-thinking', { max_completion_tokens: 100_000 })).toEqual({
      includeThoughts: true,
      thinkingBudget: 24576,
    });
    expect(converted('gemini-2.5-flash-thinking', { reasoning_effort: 'low' })).toEqual({ includeThoughts: true, thinkingBudget: 4915 });
    expect(converted('gemini-2.5-pro-thinking', { reasoning_effort: 'high' })).toEqual({ includeThoughts: true, thinkingBudget: 26214 });
    expect(converted('gemini-2.5-pro-thinking')).toEqual({ includeThoughts: true, thinkingBudget: 32768 });
    expect(converted('gemini-2.5-pro-preview-05-06-thinking', { max_tokens: 1000 })).toEqual({ includeThoughts: true });
  });

  it('-nothinking: a budget of 0, except for the 2.5 Pro models that cannot stop thinking', () => {
    expect(converted('gemini-2.5-flash-nothinking')).toEqual({ thinkingBudget: 0 });
    expect(converted('gemini-2.5-pro-nothinking')).toBeUndefined();
  });

  it('-<effort>: Gemini 3 thinkingLevel', () => {
    expect(converted('gemini-3-pro-preview-low')).toEqual({ includeThoughts: true, thinkingLevel: 'low' });
    expect(converted('gemini-3-pro-preview-high')).toEqual({ includeThoughts: true, thinkingLevel: 'high' });
    expect(converted('gemini-2.5-flash')).toBeUndefined();
  });

  it('calls Gemini (and Vertex) with the model name without its suffix, only while the adapter is on', () => {
    const url = (model: string, settings = on) => geminiAdaptor.buildChatRequest(call(model, settings)).url;
    expect(url('gemini-2.5-flash-thinking-1000')).toBe('https://up.example/v1beta/models/gemini-2.5-flash:generateContent');
    expect(url('gemini-2.5-flash-thinking')).toBe('https://up.example/v1beta/models/gemini-2.5-flash:generateContent');
    expect(url('gemini-2.5-flash-nothinking')).toBe('https://up.example/v1beta/models/gemini-2.5-flash:generateContent');
    expect(url('gemini-3-pro-preview-low')).toBe('https://up.example/v1beta/models/gemini-3-pro-preview:generateContent');
    expect(url('gemini-2.5-flash-thinking', off)).toBe('https://up.example/v1beta/models/gemini-2.5-flash-thinking:generateContent');
    // gemini.version_settings is looked up by the name Gemini is called with.
    const versions = settingsOf({ 'gemini.thinking_adapter_enabled': true, 'gemini.version_settings': { 'gemini-x': 'v1' } });
    expect(url('gemini-x-thinking', versions)).toBe('https://up.example/v1/models/gemini-x:generateContent');
    const account = JSON.stringify({ type: 'service_account', project_id: 'p', client_email: 'e@p', private_key: 'k' });
    const vertex = vertexAdaptor.forModel!('gemini-2.5-flash-thinking', call('gemini-2.5-flash-thinking').channel);
    const built = vertex.buildChatRequest({ ...call('gemini-2.5-flash-thinking'), channel: vertexChannel(account) });
    expect(built.url).toMatch(/\/publishers\/google\/models\/gemini-2\.5-flash:generateContent$/);
  });

  it("adds the adapter's config to a Gemini client's own request only when it sent none", () => {
    const finish = (body: Json, model: string, settings = on) => geminiAdaptor.finishBody!(body, call(model, settings), false);
    const ask = { contents: [], generationConfig: { maxOutputTokens: 1000 } };
    expect(finish(ask, 'gemini-2.5-flash-thinking')).toEqual({
      contents: [],
      generationConfig: { maxOutputTokens: 1000, thinkingConfig: { includeThoughts: true, thinkingBudget: 600 } },
    });
    // No OpenAI request: no reasoning_effort to take a budget from.
    expect(finish({ contents: [] }, 'gemini-2.5-flash-thinking')).toEqual({
      contents: [],
      generationConfig: { thinkingConfig: { includeThoughts: true } },
    });
    expect(finish({ contents: [], generation_config: { max_output_tokens: 100 } }, 'gemini-2.5-flash-nothinking')).toEqual({
      contents: [],
      generation_config: { max_output_tokens: 100, thinkingConfig: { thinkingBudget: 0 } },
    });
    const own = { contents: [], generationConfig: { thinkingConfig: { thinkingBudget: 5 } } };
    expect(finish(own, 'gemini-2.5-flash-thinking')).toEqual(own);
    expect(finish(ask, 'gemini-2.5-flash-thinking', off)).toEqual(ask);
    expect(finish(ask, 'gemini-2.5-flash')).toEqual(ask);
    // A broken generationConfig is left for Gemini to refuse (a 4xx), never a crash here.
    expect(finish({ contents: [], generationConfig: 'x' }, 'gemini-2.5-flash-thinking')).toEqual({ contents: [], generationConfig: 'x' });
  });
});

function vertexChannel(key: string): RelayChannel {
  const upstream = { id: 2, type: 41, key, baseUrl: '', other: 'us-central1' };
  return { id: 2, type: 41, other: upstream.other, upstream } as unknown as RelayChannel;
}

describe("an OpenAI client's extra_body.google (Google's OpenAI-compatible API, as new-api reads it)", () => {
  const config = (model: string, google: Json, settings = on) =>
    (geminiCodec.requestFromHub({ messages: [{ role: 'user', content: 'hi' }], extra_body: { google } }, model, settings) as Json)
      .generationConfig;

  it('sends its thinking_config in place of the adapter: a positive budget turns thoughts on, include_thoughts decides last', () => {
    expect(config('gemini-2.5-flash', { thinking_config: { thinking_budget: 1024 } }, off)?.thinkingConfig).toEqual({
      thinkingBudget: 1024,
      includeThoughts: true,
    });
    expect(config('gemini-2.5-flash', { thinking_config: { thinking_budget: 0 } })?.thinkingConfig).toEqual({
      thinkingBudget: 0,
      includeThoughts: false,
    });
    expect(
      config('gemini-2.5-flash-thinking-2048', { thinking_config: { thinking_budget: 512, include_thoughts: false } })?.thinkingConfig,
    ).toEqual({ thinkingBudget: 512, includeThoughts: false });
    expect(config('gemini-3-pro', { thinking_config: { thinking_level: 'low' } })?.thinkingConfig).toEqual({ thinkingLevel: 'low' });
    // Present without a thinking_config: the adapter stays out all the same (new-api).
    expect(config('gemini-2.5-flash-thinking-2048', { image_config: { aspect_ratio: '16:9' } })).toEqual({
      imageConfig: { aspectRatio: '16:9' },
    });
    // A -nothinking model ignores the client's thinking (and the adapter stays out).
    expect(config('gemini-2.5-flash-nothinking', { thinking_config: { thinking_budget: 99 } })).toBeUndefined();
  });

  it('maps image_config to imageConfig', () => {
    expect(config('gemini-2.5-flash-image', { image_config: { aspect_ratio: '1:1', image_size: '2K' } }, off)?.imageConfig).toEqual({
      aspectRatio: '1:1',
      imageSize: '2K',
    });
  });

  it('refuses camelCase names and wrong types with the name to use', () => {
    const refused = (google: Json) => () => config('gemini-2.5-flash', google);
    expect(refused({ thinkingConfig: {} })).toThrow(AdaptorRequestError);
    expect(refused({ thinkingConfig: {} })).toThrow(
      'extra_body.google.thinkingConfig is not supported, use extra_body.google.thinking_config instead',
    );
    expect(refused({ thinking_config: { thinkingBudget: 1 } })).toThrow(/use extra_body.google.thinking_config.thinking_budget instead/);
    expect(refused({ thinking_config: { thinking_budget: '1' } })).toThrow(
      'extra_body.google.thinking_config.thinking_budget must be an integer',
    );
    expect(refused({ thinking_config: { include_thoughts: 'yes' } })).toThrow('include_thoughts must be a boolean');
    expect(refused({ thinking_config: { thinking_level: 3 } })).toThrow('thinking_level must be a string');
    expect(refused({ imageConfig: {} })).toThrow(/use extra_body.google.image_config instead/);
    expect(refused({ image_config: { aspectRatio: '1:1' } })).toThrow(/use extra_body.google.image_config.aspect_ratio instead/);
  });
});
