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

  it('keeps a single whole event as addEvents does, counted as relayed', () => {
    const events = ['data: {"a":1}\n\n', 'data: {"a":12}\n\n', 'data: {"b":"é"}\n\n'];
    const one = new KeptEvents();
    const many = new KeptEvents();
    for (const event of events) {
      one.addEvent(Buffer.from(event));
      many.addEvents(Buffer.from(event));
    }
    expect(one.relayed).toBe(Buffer.byteLength(events.join('')));
    expect(one.size).toBe(many.size);
    expect(one.take()).toEqual(['{"a":1}', '{"a":12}', '{"b":"é"}']);
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
    expect(kept.size).toBeLessThanOrEqual(payloads.reduce((sum, p) => sum + Buffer.byteLength(p) + 8, 0));
    expect(kept.take()).toEqual(payloads);
  });

  it('keeps the chunks of one answer in a fraction of their size (only what differs from a template chunk)', () => {
    const kept = new KeptEvents();
    const event = (n: number) =>
      `data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1764000000,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":" word${n}"},"finish_reason":null}]}\n\n`;
    let relayed = 0;
    for (let n = 0; n < 200; n++) {
      kept.addEvents(Buffer.from(event(n)));
      relayed += event(n).length;
    }
    expect(kept.size).toBeLessThan(relayed / 8);
    expect(kept.relayed).toBe(relayed);
    expect(kept.take()).toEqual(Array.from({ length: 200 }, (_, n) => event(n).slice(6, -2)));
    expect(kept.relayed).toBe(0);
  });

  it('gives back payloads that share starts and ends in every overlap (shorter, longer, empty, inside UTF-8 characters)', () => {
    // A fixed pseudo-random sequence over a small alphabet, so that payloads share much with each other.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const alphabet = ['a', 'b', 'é', 'ü', '{', '"', '€'];
    const long = `{"${'x'.repeat(300)}é"}`;
    const huge = `{"${'y'.repeat(70_000)}"}`;
    const payloads: string[] = ['aaa', 'aa', 'aaaa', '', 'a', 'éa', 'aé', 'éé', long, long, huge, huge, `${huge}z`, 'b'];
    for (let i = 0; i < 2000; i++) {
      const base = payloads[payloads.length - 1]!;
      const cut = next(base.length + 1);
      const middle = Array.from({ length: next(4) }, () => alphabet[next(alphabet.length)]).join('');
      payloads.push(next(3) === 0 ? middle : base.slice(0, cut) + middle + base.slice(cut + next(3)));
    }
    const kept = new KeptEvents();
    for (const [i, payload] of payloads.entries()) {
      if (i % 3 === 0) kept.addPayload(payload);
      else if (payload.startsWith('{') || payload === '') kept.addPayload(payload);
      else kept.addEvents(Buffer.from(`data: ${payload}\n\n`));
      if (i === 1000) expect(kept.take()).toEqual(payloads.slice(0, 1001));
    }
    expect(kept.take()).toEqual(payloads.slice(1001));
  });
  it('takes a new template when a payload shares little with the current one, and decodes against the right one', () => {
    const head = '{"id":"chatcmpl-9","object":"chat.completion.chunk","created":1764000000,"model":"gpt-4o","choices":[{"index":0,"delta":';
    const tail = ',"logprobs":null,"finish_reason":null}]}';
    const content = (text: string) => `${head}{"content":"${text}"}${tail}`;
    const payloads = [
      `${head}{"role":"assistant","content":"","refusal":null}${tail}`,
      ...Array.from({ length: 50 }, (_, n) => content(` w${n}`)),
      '{"id":"chatcmpl-9","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":51,"total_tokens":60}}',
      '{"id":"chatcmpl-9","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":51,"total_tokens":60}}',
      '[DONE]',
      ...Array.from({ length: 50 }, (_, n) => content(`é${n}`)),
      content('é49'),
      '',
      content(''),
    ];
    const kept = new KeptEvents();
    let relayed = 0;
    for (const payload of payloads) {
      kept.addEvent(Buffer.from(`data: ${payload}\n\n`));
      relayed += Buffer.byteLength(payload) + 8;
    }
    expect(kept.relayed).toBe(relayed);
    expect(kept.size).toBeLessThan(relayed / 5);
    expect(kept.take()).toEqual(payloads);
  });
  it('keeps an answer whose first chunk carries the role as compactly: the second chunk becomes the template', () => {
    const head = '{"id":"chatcmpl-9","object":"chat.completion.chunk","created":1764000000,"model":"gpt-4o","choices":[{"index":0,"delta":';
    const tail = ',"logprobs":null,"finish_reason":null}]}';
    const payloads = [
      `${head}{"role":"assistant","content":"","refusal":null}${tail}`,
      ...Array.from({ length: 200 }, (_, n) => `${head}{"content":" w${n}"}${tail}`),
    ];
    const kept = new KeptEvents();
    for (const payload of payloads) kept.addEvent(Buffer.from(`data: ${payload}\n\n`));
    // Against the role chunk every later chunk would keep `content":" wN` (about 7.6 times smaller than relayed).
    expect(kept.size).toBeLessThan(kept.relayed / 12);
    expect(kept.take()).toEqual(payloads);
  });
});
