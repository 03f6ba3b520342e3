import { describe, expect, it } from 'vitest';
import { KeptEvents } from './kept-events.js';

describe('KeptEvents', () => {
  it('gives back the payloads of whole events and of single payloads, in the order they were kept', () => {
    const kept = new KeptEvents();
    kept.addEvents(Buffer.from('data: {"a":1}\n\ndata: {"b":"é"}\n\n'));
    kept.addPayload('{"c":"wörld"}');
    kept.addEvents(Buffer.from('data: {"d":4}\n\n'));
    expect(kept.take()).toEqual(['{"a":1}', '{"b":"é"}', '{"c":"wörld"}', '{"d":4}']);
  });

  it('is empty after take() and reuses its buffer for what comes next', () => {
    const kept = new KeptEvents();
    kept.addPayload('{"x":1}');
    expect(kept.take()).toEqual(['{"x":1}']);
    expect(kept.size).toBe(0);
    expect(kept.take()).toEqual([]);
    kept.addPayload('{"y":2}');
    expect(kept.take()).toEqual(['{"y":2}']);
  });

  it('grows past its first capacity without losing or reordering bytes', () => {
    const kept = new KeptEvents();
    const payloads = Array.from({ length: 500 }, (_, i) => `{"n":${i},"text":"${'ü'.repeat(i % 37)}"}`);
    for (const [i, payload] of payloads.entries()) {
      if (i % 2) kept.addPayload(payload);
      else kept.addEvents(Buffer.from(`data: ${payload}\n\n`));
    }
    expect(kept.size).toBe(payloads.reduce((sum, p) => sum + Buffer.byteLength(p) + 8, 0));
    expect(kept.take()).toEqual(payloads);
  });
});
