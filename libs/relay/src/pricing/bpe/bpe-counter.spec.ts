import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { BpeCounter } from './bpe-counter.js';
import { buildRankTables, buildRankTablesSync, type EncodingName } from './rank-table-build.js';

type CountTokens = (text: string, options: { disallowedSpecial: Set<string> }) => number;
const load = createRequire(import.meta.url);
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Deterministic, so that a failure names a corpus entry that fails again on the next run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const random = seededRandom(20_240_601);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
const inRange = (low: number, high: number) => String.fromCodePoint(low + Math.floor(random() * (high - low + 1)));

/** Each draws one "character" (sometimes a few) from a class where tokenizers tend to differ. */
const CHARACTER_CLASSES: (() => string)[] = [
  () => inRange(0x20, 0x7e),
  () => inRange(0x20, 0x7e),
  () => pick([' ', ' ', '\n', '\r', '\t', '\r\n', '\u00a0', '\u3000', '\u2028', '\ufeff']),
  () => inRange(0x00, 0x1f),
  () => inRange(0x80, 0xff),
  () => inRange(0x0100, 0x052f), // Latin Extended, Greek, Cyrillic
  () => inRange(0x0590, 0x06ff), // Hebrew, Arabic
  () => inRange(0x0900, 0x0e7f), // Indic scripts, Thai
  () => inRange(0x0300, 0x036f), // combining marks
  () => inRange(0x4e00, 0x9fff),
  () => inRange(0x3040, 0x30ff),
  () => inRange(0xac00, 0xd7a3),
  () => inRange(0x1f300, 0x1faff),
  () => pick(['\u200d', '\ufe0f', '\u{1f3fd}']),
  () => String.fromCharCode(0xd800 + Math.floor(random() * 0x800)), // lone surrogates
  () => String.fromCharCode(Math.floor(random() * 0x10000)),
  () => inRange(0x10000, 0x10ffff),
  () => inRange(0x30, 0x39).repeat(1 + Math.floor(random() * 8)),
  () => pick([' the', 'ing', "'s", "'LL", ' <|endoftext|>', '<|im_start|>', '</div>', '://', '\ufeffusing', '\ufffd']),
];

function randomText(maxLength: number): string {
  let text = '';
  const length = Math.floor(random() * maxLength);
  while (text.length < length) text += pick(CHARACTER_CLASSES)();
  return text;
}

const CORPUS: Record<string, string[]> = {
  'English prose': [
    'The quick brown fox jumps over the lazy dog.',
    "It's what they'd've WANTED, isn't it? They'll say: \"No—we're DONE.\"",
    "Mr. O'Neil paid $1,234.56 on 2024-06-01 at 10:45pm (UTC+02:00); see §4.2, p. 17…",
  ],
  code: [
    'export async function fetchUser(id: string): Promise<User> {\n\tconst res = await fetch(`/api/users/${id}`);\n\treturn res.json();\n}\n',
    'def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\n\nprint([fib(i) for i in range(20)])\r\n',
    '#include <stdio.h>\nint main(void){for(int i=0;i<10;++i)printf("%d\\n",i);return 0;}',
    '  <div className="row">{items.map((x) => <Item key={x.id} {...x} />)}</div>',
  ],
  JSON: [
    JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], temperature: 0.7, tools: [] }),
    JSON.stringify(
      { type: 'object', properties: { city: { type: 'string', description: 'City name, e.g. Paris' } }, required: ['city'] },
      null,
      2,
    ),
  ],
  'Chinese, Japanese, Korean': [
    '你好，世界！今天天气很好，我们去公园散步吧。',
    '東京都は日本の首都です。カタカナとひらがな、漢字を混ぜて書きます。',
    '안녕하세요. 저는 학생입니다. 한국어를 공부하고 있어요.',
  ],
  emoji: ['😀😃😄', '👨‍👩‍👧‍👦 family', '🏳️‍🌈🏴‍☠️', '👍🏽👍🏿', '🇫🇷🇯🇵', 'ok 👌🏻!', '❤️‍🔥'],
  'combining marks': ['cafe\u0301 na\u0308ive', 'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇', 'ก่า', 'नमस्ते', 'a\u0301\u0302\u0303\u0304'],
  numbers: [
    ...Array.from({ length: 40 }, (_, n) => '9876543210'.repeat(4).slice(0, n + 1)),
    '3.14159',
    '-0.5e-10',
    '1,000,000',
    '٣٤٥٦',
    '１２３４５',
    '½ ⅓ ²³',
  ],
  whitespace: ['   ', '\n\n\n', '\t\t\t', ' \n \n ', 'a   b', 'a\r\n\r\nb', 'x \t \n y', ' '.repeat(100), `${'\n'.repeat(50)}end`, 'end  '],
  'special-token lookalikes': ['<|endoftext|>', 'a <|endoftext|> b', '<|im_start|>user\nhi<|im_end|>', '<|fim_prefix|><|endofprompt|>'],
  // A lone surrogate is encoded as U+FFFD, which some tokens contain (and they end in the same count).
  'lone surrogates': [
    '\ud800',
    'a\udc00b',
    '\ud83d',
    'x\ud83dy',
    '\udfff\ud800',
    '😀\ud83d',
    '\ufffd\ud800',
    ' \udc00\udc00',
    ...['s', 't', 'n', '\n', '\n\n', '&&', '?'].flatMap((after) => [`\ud800${after}`, `\udc00${after}`]),
    ...[' ', '?', '.', '€'].map((before) => `${before}\udbff`),
    ...[2, 3, 4, 8, 9].map((count) => '\udfff'.repeat(count)),
  ],
  // gpt-tokenizer drops a byte order mark that starts a merge candidate, so "\ufeff名" is one token ("名") to it.
  'byte order marks': [
    '\ufeff',
    '\ufeffusing System;',
    '\ufeff\n',
    'a\ufeffb',
    '\ufeff\ufeff',
    '\ufeff#include',
    '\ufeff//x',
    ' \ufeffnamespace',
    '\ufeff/*\n',
    '\ufeff名',
    '\ufeff名字',
    'x\ufeff名',
    '\ufeff\u1784',
    '\ufeff\u0800',
  ],
  'very long words': [
    'a'.repeat(10_000),
    'ab'.repeat(3_000),
    'x'.repeat(257),
    'Supercalifragilistic'.repeat(100),
    '漢'.repeat(2_000),
    ' '.repeat(5_000),
    '\n'.repeat(3_000),
    '😀'.repeat(1_000),
    '-'.repeat(4_000),
    '\ufeff'.repeat(500),
    Array.from({ length: 5_000 }, () => inRange(0x61, 0x7a)).join(''),
    Array.from({ length: 2_000 }, () => inRange(0x0300, 0x036f)).join(''),
  ],
  'seeded random text': Array.from({ length: 3_000 }, () => randomText(60)),
  'seeded random paragraphs': Array.from({ length: 100 }, () => randomText(2_000)),
};

describe.each<EncodingName>(['o200k_base', 'cl100k_base'])('BpeCounter (%s)', (encoding) => {
  let counter: BpeCounter;
  let reference: CountTokens;

  beforeAll(async () => {
    reference = (load(`gpt-tokenizer/cjs/encoding/${encoding}`) as { countTokens: CountTokens }).countTokens;
    // Both ways of building are in use: o200k at boot, cl100k on first use.
    counter = new BpeCounter(encoding === 'o200k_base' ? await buildRankTables(encoding) : buildRankTablesSync(encoding));
  });

  it.each(Object.keys(CORPUS))('counts %s exactly as gpt-tokenizer does', (category) => {
    const mismatches = CORPUS[category]
      .map((text) => ({ text: JSON.stringify(text.slice(0, 80)), ours: counter.count(text), theirs: reference(text, AS_TEXT) }))
      .filter(({ ours, theirs }) => ours !== theirs);
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('counts nothing for empty text', () => {
    expect(counter.count('')).toBe(0);
  });

  it('stays fast on a 100k-letter word', () => {
    const started = performance.now();
    expect(counter.count('q'.repeat(100_000))).toBeGreaterThan(1_000);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
