import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SseTracker } from './sse-tracker.js';

const countWords = (text: string) => text.split(/\s+/).filter(Boolean).length;
const chunk = (content: string) =>
  `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${content}"}}]}\n\n`;
const usageChunk =
  'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}\n\n';

function run(tracker: SseTracker, input: string, splitEvery = 7): string {
  let out = '';
  const bytes = Buffer.from(input);
  for (let i = 0; i < bytes.length; i += splitEvery) out += tracker.push(bytes.subarray(i, i + splitEvery));
  return out + tracker.end();
}

describe('SseTracker', () => {
  it('re-emits events split across arbitrary chunk boundaries (including inside UTF-8 characters)', () => {
    const tracker = new SseTracker(true, countWords, 5, true);
    const out = run(tracker, `${chunk('héllo ') + chunk('wörld') + usageChunk}data: [DONE]\n\n`, 3);
    expect(out).toBe(`${chunk('héllo ') + chunk('wörld') + usageChunk}data: [DONE]\n\n`);
    expect(tracker.finalUsage()).toEqual({ usage: { promptTokens: 7, completionTokens: 3, cachedTokens: 0 }, local: false });
  });

  it('drops the usage-only chunk when the client did not ask for usage, but still bills from it', () => {
    const tracker = new SseTracker(false, countWords, 5, true);
    const out = run(tracker, `${chunk('hi') + usageChunk}data: [DONE]\n\n`);
    expect(out).toBe(`${chunk('hi')}data: [DONE]\n\n`);
    expect(tracker.finalUsage().usage.completionTokens).toBe(3);
  });

  it('counts delivered text and adds a synthetic usage chunk before [DONE] when upstream sent none', () => {
    const tracker = new SseTracker(true, countWords, 5, true);
    const out = run(tracker, `${chunk('one two ') + chunk('three')}data: [DONE]\n\n`);
    const events = out.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const synthetic = JSON.parse(events.at(-2)!.slice(6));
    expect(synthetic).toMatchObject({
      id: 'c1',
      object: 'chat.completion.chunk',
      model: 'm',
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
    });
    expect(tracker.finalUsage()).toEqual({ usage: { promptTokens: 5, completionTokens: 3, cachedTokens: 0 }, local: true });
  });

  it('accepts CRLF line ends and a stream that ends without [DONE], and ignores comments and event lines', () => {
    const tracker = new SseTracker(false, countWords, 1, true);
    const out = run(tracker, `: ping\r\nevent: x\r\n${chunk('a b').replace(/\n/g, '\r\n')}`);
    expect(out).toBe(`${chunk('a b')}data: [DONE]\n\n`);
    expect(tracker.finalUsage().usage.completionTokens).toBe(2);
  });

  it('passes whole ordinary events through as the same bytes, and still counts their text when usage never comes', () => {
    const tracker = new SseTracker(true, countWords, 5, true);
    const plain = Buffer.from(chunk('one two ') + chunk('thrée '));
    expect(tracker.push(plain)).toBe(plain);
    // A chunk split mid-event goes the decoding way; the next whole one passes through again.
    expect(String(tracker.push(Buffer.from(chunk('four ').slice(0, 20))))).toBe('');
    expect(String(tracker.push(Buffer.from(chunk('four ').slice(20))))).toBe(chunk('four '));
    const again = Buffer.from(chunk('five'));
    expect(tracker.push(again)).toBe(again);
    const out = tracker.end();
    expect(JSON.parse(out.split('\n\n')[0]!.slice(6)).usage).toMatchObject({ completion_tokens: 5 });
    expect(tracker.finalUsage()).toEqual({ usage: { promptTokens: 5, completionTokens: 5, cachedTokens: 0 }, local: true });
  });

  it('rebuilds chunks that are not plain events: usage, [DONE], CRLF, comments, a data line without its space', () => {
    const tracker = new SseTracker(false, countWords, 5, true);
    const decoded = (input: string) => {
      const out = tracker.push(Buffer.from(input));
      expect(typeof out).toBe('string');
      return out;
    };
    expect(decoded(`: keep-alive\n\n${chunk('a')}`)).toBe(chunk('a'));
    expect(decoded(chunk('b').replace(/\n/g, '\r\n'))).toBe(chunk('b'));
    expect(decoded(chunk('c').replace('data: ', 'data:'))).toBe(chunk('c'));
    expect(decoded(usageChunk)).toBe('');
    expect(decoded('data: [DONE]\n\n')).toBe('data: [DONE]\n\n');
    expect(tracker.finalUsage()).toEqual({ usage: { promptTokens: 7, completionTokens: 3, cachedTokens: 0 }, local: false });
  });

  it('passes through only whole plain events: a CR, usage, [DONE] or a payload that is not an object takes the decoding way', () => {
    const tracker = new SseTracker(true, countWords, 5, true);
    const passes = (input: string) => {
      const bytes = Buffer.from(input);
      return tracker.push(bytes) === bytes;
    };
    // "[DONE]" or "usage" as words of the text are ordinary content.
    expect(passes(chunk('say [DONE] and usage '))).toBe(true);
    expect(passes(chunk('a') + chunk('b'))).toBe(true);
    expect(passes(`${chunk('a')}data: [DONE]\n\n`)).toBe(false);
    expect(passes(chunk('c').replace('"content"', '"usage":null,"content"'))).toBe(false);
    expect(passes(chunk('d').replace('"d"', '"d\r"'))).toBe(false);
    expect(passes('data: 42\n\n')).toBe(false);
    expect(passes(chunk('e').replace('\n\n', '\n'))).toBe(false);
    expect(passes(`${chunk('f')}data: {"x":1}\n`)).toBe(false);
    expect(passes('data: {\n\n')).toBe(true);
    // The same rules for a long chunk (another scan).
    const long = chunk('x'.repeat(600));
    expect(passes(long + chunk('a'))).toBe(true);
    expect(passes(`${long}data: [DONE]\n\n`)).toBe(false);
    expect(passes(long + chunk('c').replace('"content"', '"usage":null,"content"'))).toBe(false);
    expect(passes(long + chunk('d').replace('"d"', '"d\r"'))).toBe(false);
    expect(passes(`${long}data: 42\n\n`)).toBe(false);
    expect(passes(`${long}${chunk('f')}data: {"x":1}\n`)).toBe(false);
    expect(passes(long.replace('\n\n', '\n') + chunk('g'))).toBe(false);
    expect(tracker.sawDone).toBe(true);
  });

  it('clamps negative or huge upstream usage (never a negative charge)', () => {
    const tracker = new SseTracker(false, countWords, 1, true);
    run(tracker, 'data: {"choices":[],"usage":{"prompt_tokens":-1000,"completion_tokens":1e300}}\n\ndata: [DONE]\n\n');
    const { usage } = tracker.finalUsage();
    expect(usage.promptTokens).toBe(0);
    expect(usage.completionTokens).toBe(100_000_000);
  });

  it('counts a long stream without usage exactly as a short one would, folding what it keeps as it goes', () => {
    // Each event differs from the one before by more than its word (a per-event fingerprint), so what is kept grows past the fold size.
    const fingerprint = (word: string) => createHash('sha1').update(word).digest('hex');
    const chunk = (word: string) =>
      `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"${fingerprint(word)}","choices":[{"index":0,"delta":{"content":"${word}"}}]}\n\n`;
    const words = Array.from({ length: 2000 }, (_, i) => `w${i} `);
    const whole = new SseTracker(false, countWords, 1, true);
    const out = run(whole, `${words.map(chunk).join('')}data: [DONE]\n\n`, 4096);
    expect(out).toBe(`${words.map(chunk).join('')}data: [DONE]\n\n`);
    expect(whole.finalUsage()).toEqual({ usage: { promptTokens: 1, completionTokens: 2000, cachedTokens: 0 }, local: true });
    // Event by event (the pass-through path), with a split event (the decoding path) in between.
    let folds = 0;
    const byEvent = new SseTracker(
      true,
      (text) => {
        folds++;
        return countWords(text);
      },
      1,
      true,
    );
    for (const word of words.slice(0, 1000)) byEvent.push(Buffer.from(chunk(word)));
    const split = Buffer.from(chunk(words[1000]!));
    byEvent.push(split.subarray(0, 11));
    byEvent.push(split.subarray(11));
    for (const word of words.slice(1001)) byEvent.push(Buffer.from(chunk(word)));
    // Kept events were folded (counted) before the end, not all held until it.
    expect(folds).toBeGreaterThan(1);
    const synthetic = JSON.parse(byEvent.end().split('\n\n')[0]!.slice(6));
    expect(synthetic).toMatchObject({ id: 'c1', model: 'm', usage: { completion_tokens: 2000 } });
  });

  it('folds repeated events, which take little memory, once 64 KB of them wait to be counted (a short count at the end)', () => {
    const tracker = new SseTracker(false, countWords, 1, true);
    const flood = Buffer.from(chunk('flood '.repeat(100)).repeat(16));
    let mostWaiting = 0;
    for (let i = 0; i < 64; i++) {
      tracker.push(flood);
      mostWaiting = Math.max(mostWaiting, tracker['kept'].relayed);
    }
    // 64 reads of 16 events of ~720 bytes (720 KB): never more than 64 KB of them wait to be parsed.
    expect(mostWaiting).toBeGreaterThan(32 * 1024);
    expect(mostWaiting).toBeLessThanOrEqual(64 * 1024);
    expect(tracker.finalUsage().usage.completionTokens).toBeGreaterThan(64 * 16 * 100);
  });

  it('bills from usage in the last event even after thousands of events were kept for a local count', () => {
    const tracker = new SseTracker(false, countWords, 5, true);
    for (let i = 0; i < 3000; i++) tracker.push(Buffer.from(chunk(`t${i} `)));
    expect(tracker.push(Buffer.from(`${usageChunk}data: [DONE]\n\n`))).toBe('data: [DONE]\n\n');
    expect(tracker.finalUsage()).toEqual({ usage: { promptTokens: 7, completionTokens: 3, cachedTokens: 0 }, local: false });
  });
});
