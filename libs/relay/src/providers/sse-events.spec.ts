import { describe, expect, it } from 'vitest';
import { SseEventReader } from './sse-events.js';

describe('SseEventReader', () => {
  it('joins events split anywhere across chunks, CRLF or LF, with their event names', () => {
    const wire = 'event: message_start\ndata: {"a":1}\n\n: comment\r\nevent: ping\r\ndata: {"b":2}\r\n\r\ndata: [DONE]\n\n';
    for (let cut = 1; cut < wire.length; cut++) {
      const reader = new SseEventReader();
      const events = [...reader.push(wire.slice(0, cut)), ...reader.push(wire.slice(cut)), ...reader.end()];
      expect(events, `cut at ${cut}`).toEqual([
        { event: 'message_start', data: '{"a":1}' },
        { event: 'ping', data: '{"b":2}' },
        { event: '', data: '[DONE]' },
      ]);
    }
  });

  it('keeps a multi-byte character split between chunks, and reads a last event without its blank line', () => {
    const reader = new SseEventReader();
    const bytes = Buffer.from('data: {"t":"é"}');
    const out = [...reader.push(bytes.subarray(0, 13)), ...reader.push(bytes.subarray(13)), ...reader.end()];
    expect(out).toEqual([{ event: '', data: '{"t":"é"}' }]);
  });

  it('separates back-to-back data lines that are each a whole JSON payload', () => {
    const reader = new SseEventReader();
    expect(reader.push('data: {"a":1}\ndata: {"b":2}\n\n')).toEqual([
      { event: '', data: '{"a":1}' },
      { event: '', data: '{"b":2}' },
    ]);
  });
});
