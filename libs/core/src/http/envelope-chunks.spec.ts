import { describe, expect, it } from 'vitest';
import { envelopeChunks } from './envelope.interceptor.js';
import { jsonArray } from './envelope.js';

describe('an array answer written in chunks', () => {
  it('is the envelope around the runs joined by commas, in chunks of at least 256 K characters but the last', () => {
    const parts = Array.from({ length: 300 }, (_, i) => `{"n":${i},"s":"${'x'.repeat(i * 37)}"}`);
    const chunks = [...envelopeChunks(parts)];
    expect(chunks.join('')).toBe(`{"success":true,"message":"","data":[${parts.join(',')}]}`);
    expect(JSON.parse(chunks.join('')).data).toHaveLength(300);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBeGreaterThanOrEqual(256 * 1024);
  });

  it('is an empty list without runs, and jsonArray gives the same array as text', () => {
    expect([...envelopeChunks([])].join('')).toBe('{"success":true,"message":"","data":[]}');
    expect(jsonArray(['{"a":1},{"a":2}', '{"a":3}']).text).toBe('[{"a":1},{"a":2},{"a":3}]');
  });
});
