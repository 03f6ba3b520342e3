import { describe, expect, it } from 'vitest';
import { KeyRedactor } from './key-redactor.js';
import { redactKeys } from './redact.js';

const KEY = 'sk-proj-Abc123XyZ987qwertyUIOP456';
const OTHER = 'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY';

/** Feeds `text` to a stream cut at each of `cuts` and returns what the client would see. */
function streamed(redactor: KeyRedactor, text: string, cuts: number[]): string {
  const stream = redactor.stream();
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    out.push(stream.push(bytes.subarray(from, cut)));
    from = cut;
  }
  out.push(stream.end());
  return Buffer.concat(out).toString();
}

function leaks(out: string, secrets: string[]): string[] {
  const found: string[] = [];
  for (const secret of secrets) for (let i = 0; i + 8 <= secret.length; i++) if (out.includes(secret.slice(i, i + 8))) found.push(secret);
  return found;
}

describe('KeyRedactor', () => {
  it('is undefined for keys too short to hide', () => {
    expect(KeyRedactor.of(['abc', ''])).toBeUndefined();
  });

  it('returns clean output as the same bytes, and holds nothing back after a newline', () => {
    const stream = KeyRedactor.of([KEY])!.stream();
    const chunk = Buffer.from('data: {"choices":[{"delta":{"content":"project roadmap"}}]}\n\n');
    expect(stream.push(chunk)).toBe(chunk);
    expect(stream.end().length).toBe(0);
  });

  it('hides a key in ordinary content, whole or as a piece, in every key of a multi-key channel', () => {
    const redactor = KeyRedactor.of(['unrelated-key-000', KEY, OTHER])!;
    const text = `data: {"content":"my key is ${KEY} and ${OTHER.slice(3, 17)} ok"}\n\n`;
    const out = streamed(redactor, text, []);
    expect(out).toBe('data: {"content":"my key is *** and *** ok"}\n\n');
  });

  it('hides a key split across chunks at every cut, as one mask, and leaves the rest byte for byte', () => {
    const redactor = KeyRedactor.of([KEY])!;
    const text = `data: {"content":"echo ${KEY}"}\n\n`;
    const start = text.indexOf(KEY);
    for (let cut = start - 2; cut <= start + KEY.length + 2; cut++) {
      const out = streamed(redactor, text, [cut]);
      expect(out, `cut at ${cut}`).toBe('data: {"content":"echo ***"}\n\n');
    }
    // Three pieces, each shorter than a fragment run.
    expect(streamed(redactor, text, [start + 5, start + 10, start + 15, start + 20])).toBe('data: {"content":"echo ***"}\n\n');
  });

  it('agrees with redactKeys on a message, and hides a short secret split across chunks', () => {
    const redactor = KeyRedactor.of([KEY])!;
    const message = `key ${KEY.slice(0, 12)}****${KEY.slice(-8)} rejected`;
    expect(redactor.redactText(message)).toBe(redactKeys(message, [KEY]));
    expect(redactor.redactText('nothing to see')).toBe('nothing to see');
    const short = KeyRedactor.of(['sk-up-1'])!;
    expect(streamed(short, 'bad key sk-up-1 here\n', [11])).toBe('bad key *** here\n');
  });

  it('never lets a run of a key through, whatever the chunking (random cuts)', () => {
    const redactor = KeyRedactor.of([KEY, OTHER])!;
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const text = `data: a ${KEY} b ${OTHER.slice(random(10), 20 + random(19))} c ${KEY.slice(random(20))}\n\n`;
      const cuts = [...new Set(Array.from({ length: 1 + random(6) }, () => random(text.length)))].sort((a, b) => a - b);
      expect(leaks(streamed(redactor, text, cuts), [KEY, OTHER]), `cuts ${cuts}`).toEqual([]);
    }
  });
});

describe('KeyRedactor.mayHold', () => {
  it('finds every 8-byte run of a key at every offset in a chunk (the sampling never skips one)', () => {
    const redactor = KeyRedactor.of([KEY])!;
    for (let from = 0; from + 8 <= KEY.length; from++)
      for (let pad = 0; pad < 12; pad++) {
        const text = `${'.'.repeat(pad)}${KEY.slice(from, from + 8)}.`;
        expect(redactor.mayHold(Buffer.from(text)), `run ${from} at ${pad}`).toBe(true);
      }
  });

  it('is false for text that shares only short pieces with a key (a model named like it), true for a run of it', () => {
    const redactor = KeyRedactor.of(['sk-bench-upstream'])!;
    for (let pad = 0; pad < 5; pad++) {
      const text = `${' '.repeat(pad)}data: {"model":"bench-model","content":"upstairs"}\n\n`;
      expect(redactor.mayHold(Buffer.from(text)), `pad ${pad}`).toBe(false);
      expect(redactor.mayHold(Buffer.from(`${' '.repeat(pad)}"x":"h-upstre"`)), `pad ${pad}`).toBe(true);
    }
  });
});
