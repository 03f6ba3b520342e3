import { describe, expect, it } from 'vitest';
import { SseEventReader } from '../sse-events.js';
import type { HubChunk, Json, ProviderSettings } from '../types.js';
import { geminiCodec } from './index.js';

const noSettings: ProviderSettings = { get: () => undefined as never };
const settingsOf = (values: Record<string, unknown>): ProviderSettings => ({ get: <T>(key: string) => values[key] as T });
const build = (hub: Json, settings = noSettings): Json =>
  geminiCodec.requestFromHub({ messages: [{ role: 'user', content: 'hi' }], ...hub }, 'm', settings);

function decode(frames: unknown[]) {
  const decoder = geminiCodec.streamDecoder('m');
  const reader = new SseEventReader();
  const wire = frames.map((f) => `data: ${JSON.stringify(f)}\r\n\r\n`).join('');
  const chunks: HubChunk[] = [...reader.push(wire), ...reader.end()].flatMap((event) => decoder.decode(event));
  return { chunks, usage: decoder.usage() };
}
const answer = (candidate: Json, extra: Json = {}) => geminiCodec.responseToHub({ candidates: [candidate], ...extra }, 'm');

describe('Gemini usage as billed (new-api UsageFromGeminiMetadata)', () => {
  it('counts toolUsePromptTokenCount (grounding, URL context) as prompt', () => {
    const { usage } = answer(
      { content: { parts: [{ text: 'x' }] }, finishReason: 'STOP' },
      { usageMetadata: { promptTokenCount: 100, toolUsePromptTokenCount: 250, candidatesTokenCount: 20, thoughtsTokenCount: 5 } },
    );
    expect(usage).toEqual({ promptTokens: 350, completionTokens: 25, cachedTokens: 0 });
  });

  it('takes the output from the total when candidatesTokenCount is missing', () => {
    const { usage } = decode([
      {
        candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: 40, totalTokenCount: 55 },
      },
    ]);
    expect(usage).toEqual({ promptTokens: 40, completionTokens: 15, cachedTokens: 0 });
  });

  it("reads the prompt's IMAGE and AUDIO modalities (and what tools read) as image and audio tokens", () => {
    const { usage } = answer(
      { content: { parts: [{ text: 'x' }] }, finishReason: 'STOP' },
      {
        usageMetadata: {
          promptTokenCount: 1300,
          toolUsePromptTokenCount: 200,
          candidatesTokenCount: 10,
          promptTokensDetails: [
            { modality: 'TEXT', tokenCount: 22 },
            { modality: 'IMAGE', tokenCount: 1258 },
            { modality: 'AUDIO', tokenCount: 20 },
          ],
          toolUsePromptTokensDetails: [{ modality: 'IMAGE', tokenCount: 100 }],
        },
      },
    );
    expect(usage).toEqual({ promptTokens: 1500, completionTokens: 10, cachedTokens: 0, imageTokens: 1358, audioTokens: 20 });
  });
});

describe('OpenAI chat requests to Gemini generateContent', () => {
  it("cleans JSON Schema tool parameters to Gemini's Schema (no $schema, additionalProperties, type lists; refs inlined)", () => {
    const parameters = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      properties: {
        city: { type: 'string', description: 'City' },
        unit: { type: ['string', 'null'], enum: ['c', 'f'] },
        when: { $ref: '#/$defs/When' },
        tags: { type: 'array', items: { type: 'string', minLength: 1, const: 'x' } },
      },
      required: ['city', 'ghost'],
      $defs: { When: { type: 'object', additionalProperties: false, properties: { day: { type: 'integer', exclusiveMinimum: 0 } } } },
    };
    const body = build({
      tools: [
        { type: 'function', function: { name: 'weather', description: 'Weather', strict: true, parameters } },
        { type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {}, additionalProperties: false } } },
      ],
    });
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'weather',
            description: 'Weather',
            parameters: {
              type: 'OBJECT',
              properties: {
                city: { type: 'STRING', description: 'City' },
                unit: { type: 'STRING', nullable: true, enum: ['c', 'f'] },
                when: { type: 'OBJECT', properties: { day: { type: 'INTEGER' } } },
                tags: { type: 'ARRAY', items: { type: 'STRING', minLength: 1 } },
              },
              required: ['city'],
            },
          },
          { name: 'now', description: undefined },
        ],
      },
    ]);
  });

  it('asks for JSON with the schema when response_format is json_schema or json_object', () => {
    const schema = { type: 'object', properties: { a: { type: 'number' } }, additionalProperties: false, required: ['a'] };
    expect(build({ response_format: { type: 'json_schema', json_schema: { name: 'x', strict: true, schema } } }).generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseSchema: { type: 'OBJECT', properties: { a: { type: 'NUMBER' } }, required: ['a'] },
    });
    expect(build({ response_format: { type: 'json_object' } }).generationConfig).toEqual({ responseMimeType: 'application/json' });
    expect(build({ response_format: { type: 'text' } }).generationConfig).toBeUndefined();
  });

  it('sends seed, at most 5 stop sequences, and built-in tools by their new-api names', () => {
    const body = build({
      seed: 42,
      stop: ['a', 'b', 'c', 'd', 'e', 'f'],
      tools: [
        { type: 'function', function: { name: 'googleSearch' } },
        { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { x: { type: 'string' } } } } },
      ],
    });
    expect(body.generationConfig).toEqual({ seed: 42, stopSequences: ['a', 'b', 'c', 'd', 'e'] });
    expect(body.tools).toEqual([
      { googleSearch: {} },
      {
        functionDeclarations: [
          { name: 'f', description: undefined, parameters: { type: 'OBJECT', properties: { x: { type: 'STRING' } } } },
        ],
      },
    ]);
  });

  it('leaves HARM_CATEGORY_CIVIC_INTEGRITY out unless gemini.safety_settings names it', () => {
    const categories = (settings: ProviderSettings) => build({}, settings).safetySettings.map((s: Json) => s.category);
    expect(categories(noSettings)).not.toContain('HARM_CATEGORY_CIVIC_INTEGRITY');
    expect(build({}, noSettings).safetySettings).toHaveLength(4);
    const civic = build({}, settingsOf({ 'gemini.safety_settings': { HARM_CATEGORY_CIVIC_INTEGRITY: 'BLOCK_ONLY_HIGH' } })).safetySettings;
    expect(civic).toContainEqual({ category: 'HARM_CATEGORY_CIVIC_INTEGRITY', threshold: 'BLOCK_ONLY_HIGH' });
  });

  it('signs the first function call of each model turn (Gemini 3 refuses a history call without thought_signature)', () => {
    const body = build({
      messages: [
        { role: 'user', content: 'weather in two places?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'w', arguments: '{"p":1}' } },
            { id: 'b', type: 'function', function: { name: 'w', arguments: '{"p":2}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: '{"t":1}' },
        { role: 'tool', tool_call_id: 'b', content: 'rain' },
      ],
    });
    // The dummy value Google documents for calls whose signature is unknown (new-api sends the same).
    expect(body.contents[1].parts[0].thoughtSignature).toBe('context_engineering_is_the_way_to_go');
    expect(body.contents[1]).toEqual({
      role: 'model',
      parts: [
        { functionCall: { name: 'w', args: { p: 1 } }, thoughtSignature: 'context_engineering_is_the_way_to_go' },
        { functionCall: { name: 'w', args: { p: 2 } } },
      ],
    });
    expect(body.contents[2].parts).toEqual([
      { functionResponse: { name: 'w', response: { t: 1 } } },
      { functionResponse: { name: 'w', response: { content: 'rain' } } },
    ]);
    // gemini.function_call_thought_signature_enabled off: no signature is made up.
    const unsigned = build(
      {
        messages: [
          { role: 'user', content: 'weather?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'w', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'a', content: 'sun' },
        ],
      },
      settingsOf({ 'gemini.function_call_thought_signature_enabled': false }),
    );
    expect(unsigned.contents[1].parts).toEqual([{ functionCall: { name: 'w', args: {} } }]);
  });
});

describe('Gemini answers to OpenAI', () => {
  it('maps finish reasons as new-api: OTHER, MALFORMED_FUNCTION_CALL, SAFETY are content_filter; a call is tool_calls', () => {
    const finish = (reason: string, parts: Json[] = [{ text: 'x' }]) =>
      answer({ content: { parts }, finishReason: reason }).response.choices[0].finish_reason;
    expect(finish('STOP')).toBe('stop');
    expect(finish('MAX_TOKENS')).toBe('length');
    expect(finish('OTHER')).toBe('content_filter');
    expect(finish('MALFORMED_FUNCTION_CALL', [])).toBe('content_filter');
    expect(finish('SAFETY')).toBe('content_filter');
    expect(finish('STOP', [{ functionCall: { name: 'f', args: {} } }])).toBe('tool_calls');
  });

  it("names a refused prompt (no candidates, promptFeedback.blockReason) in new-api's prompt_blocked message", () => {
    const blocked = { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 } };
    expect(geminiCodec.blockedPrompt?.(blocked)).toBe('request blocked by Gemini API: PROHIBITED_CONTENT');
    expect(geminiCodec.blockedPrompt?.({ ...blocked, candidates: [{ content: { parts: [{ text: 'x' }] } }] })).toBeUndefined();
    expect(geminiCodec.blockedPrompt?.({ candidates: [] })).toBeUndefined();
    // The relay answers converted clients an error before this; a pass-through answer without usage ends filtered.
    const { response, usage } = geminiCodec.responseToHub(blocked, 'm');
    expect(response.choices[0]).toMatchObject({ finish_reason: 'content_filter', message: { content: '' } });
    expect(usage).toEqual({ promptTokens: 9, completionTokens: 0, cachedTokens: 0 });
  });

  it('adds nothing to a stream for a refused prompt but its usage (new-api: no finish reason, no error)', () => {
    const blocked = { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 } };
    expect(decode([blocked])).toEqual({ chunks: [], usage: { promptTokens: 9, completionTokens: 0, cachedTokens: 0 } });
  });

  it('keeps generated images and code as content (new-api: Markdown image, fenced code), streamed or not', () => {
    const parts = [
      { text: 'Here:' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { executableCode: { language: 'PYTHON', code: 'print(1)' } },
      { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } },
      { text: 'Done.' },
    ];
    const want = 'Here:\n![image](data:image/png;base64,iVBORw0KGgo=)\n```python\nprint(1)\n```\n```output\n1\n```\nDone.';
    expect(answer({ content: { parts }, finishReason: 'STOP' }).response.choices[0].message.content).toBe(want);
    const streamed = decode(parts.map((part) => ({ candidates: [{ content: { parts: [part] } }] })));
    expect(streamed.chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe(want);
  });

  it('gives every tool call its own id, so ids never repeat across turns', () => {
    const call = { content: { parts: [{ functionCall: { name: 'f', args: {} } }] }, finishReason: 'STOP' };
    const ids = [answer(call), answer(call)].map((a) => a.response.choices[0].message.tool_calls[0].id);
    const streamed = decode([{ candidates: [call] }]).chunks[0]!.choices[0].delta.tool_calls[0].id;
    expect(new Set([...ids, streamed]).size).toBe(3);
    for (const id of [...ids, streamed]) expect(id).toMatch(/^call_[0-9a-f]{32}$/);
  });
});

describe('OpenAI chunks to Gemini frames', () => {
  it('keeps tool calls without an index apart (by id), whole in the last frame', () => {
    const encoder = geminiCodec.streamEncoder({ model: 'm', promptTokens: 3, includeUsage: false });
    const chunk = (delta: Json) => ({ id: 'c', choices: [{ index: 0, delta, finish_reason: null }] });
    encoder.encode(chunk({ tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{"x":' } }] }));
    encoder.encode(chunk({ tool_calls: [{ function: { arguments: '1}' } }] }));
    encoder.encode(chunk({ tool_calls: [{ id: 'b', function: { name: 'g', arguments: '{}' } }] }));
    const last = JSON.parse(encoder.end({ promptTokens: 3, completionTokens: 2, cachedTokens: 0 }).slice(6));
    expect(last.candidates[0].content.parts).toEqual([
      { functionCall: { name: 'f', args: { x: 1 } } },
      { functionCall: { name: 'g', args: {} } },
    ]);
  });
});
