import { describe, expect, it } from 'vitest';
import type { SseEvent } from '../providers/types.js';
import { EventSplice } from './event-splice.js';

const upper = (event: SseEvent) => event.data.toUpperCase();

describe('EventSplice', () => {
  it('sends text of other events the moment it arrives, a partial line included', () => {
    const splice = new EventSplice(new Set(['x']), upper);
    expect(splice.push('event: a\ndata: {"par')).toBe('event: a\ndata: {"par');
    expect(splice.push('t":1}\n\n: ping\n')).toBe('t":1}\n\n');
    // A comment decides nothing: held until the event's type is known.
    expect(splice.push('data: {"type":"b"}\n\n')).toBe(': ping\ndata: {"type":"b"}\n\n');
    expect(splice.end()).toBe('');
  });

  it('holds an event of a rewritten type (by its event field or its JSON type) to its blank line', () => {
    const splice = new EventSplice(new Set(['x']), upper);
    expect(splice.push('event: x\ndata: {"a":')).toBe('');
    expect(splice.push('1}\n')).toBe('');
    expect(splice.push('\nevent: y\n')).toBe('event: x\ndata: {"A":1}\n\nevent: y\n');
    expect(splice.push('data: {}\n\ndata: {"type":"x"}\n\n')).toBe('data: {}\n\ndata: {"TYPE":"X"}\n\n');
  });

  it('sends a held event as it came when the rewrite declines, and a last event without its blank line at the end', () => {
    const declined = new EventSplice(new Set(['x']), () => undefined);
    expect(declined.push('event: x\ndata: {"a":1}\n\n')).toBe('event: x\ndata: {"a":1}\n\n');
    const unterminated = new EventSplice(new Set(['x']), upper);
    expect(unterminated.push('event: x\ndata: {"a":1}')).toBe('');
    expect(unterminated.end()).toBe('event: x\ndata: {"A":1}');
  });

  it('joins a multi-line data field into the one line the rewrite gives', () => {
    const splice = new EventSplice(new Set(['x']), (event) => JSON.stringify(JSON.parse(event.data)));
    expect(splice.push('event: x\ndata: {"a":\ndata: 1}\n\n')).toBe('event: x\ndata: {"a":1}\n\n');
  });
});
