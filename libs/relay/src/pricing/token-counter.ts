import { Injectable, type OnModuleInit } from '@nestjs/common';
import { BpeCounter } from './bpe/bpe-counter.js';
import { buildRankTables, buildRankTablesSync, type EncodingName } from './bpe/rank-table-build.js';

/** new-api's fixed costs: every message is framed by 3 tokens, a name adds 3, a tool 8, the reply primer 3. */
const PER_MESSAGE = 3;
const PER_NAME = 3;
const PER_TOOL = 8;
const REPLY_PRIMER = 3;

/** GPT-3.5/GPT-4 (not 4o/4.1/4.5) and the OpenAI embeddings use cl100k; everything newer or unknown o200k. */
export function encodingFor(model: string): EncodingName {
  if (model.startsWith('gpt-3.5') || model.startsWith('text-embedding-')) return 'cl100k_base';
  if (model.startsWith('gpt-4') && !model.startsWith('gpt-4o') && !model.startsWith('gpt-4.')) return 'cl100k_base';
  return 'o200k_base';
}

// Each encoding's tables (about 4 MB for o200k, 2 MB for cl100k) are built by a child process, see
// bpe/rank-table-source.ts. o200k is built at boot without blocking. cl100k is built on first use, so that a
// gateway that never relays a GPT-3.5/4 model never pays for it, and that first count blocks for the quarter
// second the child takes: counting is synchronous in the middle of a request, and an exact count for one slow
// request beats an estimate from the wrong encoding. A counter used before `onModuleInit` has finished (a test,
// a script) blocks the same way for o200k.
const counters = new Map<EncodingName, BpeCounter>();

function bpe(name: EncodingName): BpeCounter {
  let found = counters.get(name);
  if (!found) {
    found = new BpeCounter(buildRankTablesSync(name));
    counters.set(name, found);
  }
  return found;
}

async function preload(name: EncodingName): Promise<void> {
  if (counters.has(name)) return;
  const tables = await buildRankTables(name);
  // A synchronous count may have built its own while this awaited.
  if (!counters.has(name)) counters.set(name, new BpeCounter(tables));
}

/**
 * Counts of short texts seen recently (roles, names, system prompts and tool schemas repeat across
 * requests): a Map hit costs far less than re-encoding. Bounded; simply cleared when full.
 */
const CACHEABLE_LENGTH = 2048;
const CACHE_ENTRIES = 4096;
const counts = { o200k_base: new Map<string, number>(), cl100k_base: new Map<string, number>() };

function countCached(name: EncodingName, text: string): number {
  if (text.length > CACHEABLE_LENGTH) return bpe(name).count(text);
  const cache = counts[name];
  let count = cache.get(text);
  if (count === undefined) {
    count = bpe(name).count(text);
    if (cache.size >= CACHE_ENTRIES) cache.clear();
    cache.set(text, count);
  }
  return count;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Local token estimates (new-api CountTokenMessages / CountTokenInput): the prompt for the pre-consume,
 * and prompt/completion when an upstream sends no usage. Images and audio are not counted.
 */
@Injectable()
export class TokenCounter implements OnModuleInit {
  /** Builds the common encoding's tables at boot so that no request waits for them; Nest awaits this before listening. */
  async onModuleInit(): Promise<void> {
    await preload('o200k_base');
  }

  countTextTokens(model: string, text: string): number {
    return text ? countCached(encodingFor(model), text) : 0;
  }

  /** Chat (`messages`), completions (`prompt`) or embeddings (`input`) request bodies; anything else is 0. */
  countPromptTokens(model: string, body: unknown): number {
    if (!isObject(body)) return 0;
    if (Array.isArray(body.messages)) return this.countChat(model, body.messages, body.tools);
    if ('prompt' in body) return this.countInput(model, body.prompt);
    if ('input' in body) return this.countInput(model, body.input);
    return 0;
  }

  private countChat(model: string, messages: unknown[], tools: unknown): number {
    const text = (value: unknown) => (typeof value === 'string' ? this.countTextTokens(model, value) : 0);
    let total = REPLY_PRIMER;
    for (const message of messages) {
      if (!isObject(message)) continue;
      total += PER_MESSAGE + text(message.role) + this.countContent(model, message.content);
      if (typeof message.name === 'string') total += PER_NAME + text(message.name);
      if (Array.isArray(message.tool_calls)) {
        for (const call of message.tool_calls) {
          const fn = isObject(call) && isObject(call.function) ? call.function : undefined;
          if (fn) total += text(fn.name) + text(fn.arguments);
        }
      }
    }
    if (Array.isArray(tools)) {
      for (const tool of tools) {
        const fn = isObject(tool) && isObject(tool.function) ? tool.function : undefined;
        if (!fn) continue;
        total += PER_TOOL + text(fn.name) + text(fn.description) + (fn.parameters === undefined ? 0 : text(JSON.stringify(fn.parameters)));
      }
    }
    return total;
  }

  private countContent(model: string, content: unknown): number {
    if (typeof content === 'string') return this.countTextTokens(model, content);
    if (!Array.isArray(content)) return 0;
    let total = 0;
    for (const part of content) {
      if (isObject(part) && part.type === 'text' && typeof part.text === 'string') total += this.countTextTokens(model, part.text);
    }
    return total;
  }

  /** A string, a list of strings, or token ids (a list of numbers, or a list of such lists). */
  private countInput(model: string, input: unknown): number {
    if (typeof input === 'string') return this.countTextTokens(model, input);
    if (!Array.isArray(input)) return 0;
    let total = 0;
    for (const item of input) {
      if (typeof item === 'string') total += this.countTextTokens(model, item);
      else if (typeof item === 'number') total += 1;
      else if (Array.isArray(item)) total += item.length;
    }
    return total;
  }
}
