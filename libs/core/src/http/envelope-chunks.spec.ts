import { describe, expect, it } from 'vitest';
import { envelopeChunks } from './envelope.interceptor.js';
import { jsonArray } from './envelope.js';

describe('an array answer written in chunks', () => {
  const joined = (chunks: Uint8Array[]) => Buffer.concat(chunks).toString('utf8');

  it('is the envelope around the runs joined by commas, in chunks of at least 256 KiB but the last', () => {
    const parts = Array.from({ length: 300 }, (_, i) => `{"n":${i},"s":"${'x'.repeat(i * 37)}"}`);
    const chunks = [...envelopeChunks(parts)];
    expect(joined(chunks)).toBe(`{"success":true,"message":"","data":[${parts.join(',')}]}`);
    expect(JSON.parse(joined(chunks)).data).toHaveLength(300);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBeGreaterThanOrEqual(256 * 1024);
  });

  it('writes runs given as UTF-8 bytes as they are, mixed with text runs, multi-byte characters intact', () => {
    const stored = Buffer.from('{"username":"用户-é"},{"username":"b"}', 'utf8');
    const live = '{"username":"ü"}';
    const chunks = [...envelopeChunks([stored, live, new Uint8Array(Buffer.from('{"n":1}'))])];
    const body = JSON.parse(joined(chunks));
    expect(body.data).toEqual([{ username: '用户-é' }, { username: 'b' }, { username: 'ü' }, { n: 1 }]);
    expect(jsonArray([stored, live]).text).toBe(`[${stored.toString('utf8')},${live}]`);
  });

  it('writes a long run of bytes as its own chunk, the very same bytes, not a copy', () => {
    const hour = Buffer.from(`{"n":"${'y'.repeat(100 * 1024)}"}`);
    const chunks = [...envelopeChunks(['{"n":0}', hour, '{"n":2}'])];
    expect(chunks).toContain(hour);
    expect(JSON.parse(joined(chunks)).data.map((row: { n: unknown }) => typeof row.n)).toEqual(['number', 'string', 'number']);
  });

  it('is an empty list without runs, and jsonArray gives the same array as text', () => {
    expect(joined([...envelopeChunks([])])).toBe('{"success":true,"message":"","data":[]}');
    expect(jsonArray(['{"a":1},{"a":2}', '{"a":3}']).text).toBe('[{"a":1},{"a":2},{"a":3}]');
  });
});
