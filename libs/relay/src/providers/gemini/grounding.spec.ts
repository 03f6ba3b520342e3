import { describe, expect, it } from 'vitest';
import { SseEventReader } from '../sse-events.js';
import { geminiCodec } from './index.js';
import { groundingCalls } from '../../pricing/tool-prices.js';
import { GroundingTally } from './grounding.js';

const grounded = (queries: string[], chunks: object[] = [{ web: { uri: 'https://a.example', title: 'a' } }]) => ({
  candidates: [
    {
      index: 0,
      content: { role: 'model', parts: [{ text: 'x' }] },
      groundingMetadata: { webSearchQueries: queries, groundingChunks: chunks },
    },
  ],
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
});

describe('Gemini grounding billed per call (new-api google_search / google_maps)', () => {
  it('bills Gemini 3 per query, older models once per grounded prompt', () => {
    const tally = new GroundingTally();
    tally.add(grounded(['weather paris', 'weather lyon']));
    expect(groundingCalls(tally.facts(), 'gemini-3-pro-preview')).toEqual({ google_search: 2 });
    expect(groundingCalls(tally.facts(), 'gemini-2.5-flash')).toEqual({ google_search: 1 });
  });

  it('counts a source without queries as one search, Maps alone as Maps, and nothing when not grounded', () => {
    const sourceOnly = new GroundingTally();
    sourceOnly.add(grounded([]));
    expect(groundingCalls(sourceOnly.facts(), 'gemini-3-flash')).toEqual({ google_search: 1 });
    const maps = new GroundingTally();
    maps.add(grounded(['cafe near me'], [{ maps: { uri: 'https://maps.example' } }]));
    expect(groundingCalls(maps.facts(), 'gemini-3-flash')).toEqual({ google_maps: 1 });
    expect(groundingCalls(maps.facts(), 'gemini-2.5-pro')).toEqual({ google_maps: 1 });
    const none = new GroundingTally();
    none.add({ candidates: [{ content: { parts: [{ text: 'x' }] } }] });
    expect(none.facts()).toBeUndefined();
    expect(groundingCalls(none.facts(), 'gemini-3-flash')).toEqual({});
  });

  it('reads a stream as snapshots: repeated cumulative metadata is not summed', () => {
    const frames = [grounded(['q1']), grounded(['q1', 'q2']), grounded(['q1', 'q2'])];
    const decoder = geminiCodec.streamDecoder('gemini-3-pro-preview');
    const reader = new SseEventReader();
    for (const event of reader.push(frames.map((f) => `data: ${JSON.stringify(f)}\r\n\r\n`).join(''))) decoder.decode(event);
    expect(decoder.usage()).toMatchObject({ promptTokens: 10, completionTokens: 5, grounding: { queries: 2, web: true } });
    const whole = geminiCodec.responseToHub(grounded(['a', 'b', 'c']), 'client-alias').usage;
    // The rule follows the model Google ran, not the client's alias for it.
    expect(groundingCalls(whole?.grounding, 'gemini-3-pro-preview')).toEqual({ google_search: 3 });
    expect(groundingCalls(whole?.grounding, 'gemini-2.5-pro')).toEqual({ google_search: 1 });
  });
});
