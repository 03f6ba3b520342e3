import type { Usage } from '../../stream/usage.js';
import type { HubChunk, HubResponse, Json } from '../types.js';
import { hubChunk } from '../hub-chunk.js';

/**
 * Small pieces the providers with their own plain-text chat formats (Baidu, Zhipu v3, DashScope, Hunyuan,
 * PaLM, Ollama, AI Proxy library) share: message text, hub answers and chunks, token counts.
 */

const MAX_TOKENS_PER_FIELD = 100_000_000;

/** A provider's token count, clamped like every other usage field (never negative, never absurd). */
export function tokens(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), MAX_TOKENS_PER_FIELD) : 0;
}

/** Usage from a provider's prompt and completion counts; undefined when it reported none. */
export function usageOf(prompt: unknown, completion: unknown): Usage | undefined {
  const promptTokens = tokens(prompt);
  const completionTokens = tokens(completion);
  if (promptTokens === 0 && completionTokens === 0) return undefined;
  return { promptTokens, completionTokens, cachedTokens: 0 };
}

/** The text of an OpenAI message content (a string, or parts of which the text ones count). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (typeof part === 'string' ? part : part?.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

/** The hub request's messages as role + plain text (the providers here take text only). */
export function plainMessages(hub: Json): { role: string; content: string }[] {
  const messages = Array.isArray(hub.messages) ? hub.messages : [];
  return messages
    .filter((m: unknown): m is Json => typeof m === 'object' && m !== null)
    .map((m: Json) => ({ role: String(m.role ?? 'user'), content: textOf(m.content) }));
}

/** max_tokens or max_completion_tokens of a hub request (0 when absent). */
export function maxTokensOf(hub: Json): number {
  return tokens(hub.max_completion_tokens ?? hub.max_tokens);
}

export function hubAnswer(id: string, model: string, text: string, finish: string, usage?: Usage, reasoning?: string): HubResponse {
  const message: Json = { role: 'assistant', content: text };
  if (reasoning) message.reasoning_content = reasoning;
  const answer: HubResponse = {
    id: id || `chatcmpl-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: finish }],
  };
  if (usage)
    answer.usage = {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.promptTokens + usage.completionTokens,
    };
  return answer;
}

/** Builds the hub chunks of one provider stream (one id and creation time for the whole answer). */
export class ChunkMaker {
  private readonly id: string;
  private readonly created = Math.floor(Date.now() / 1000);

  constructor(
    private readonly model: string,
    id?: string,
  ) {
    this.id = id || `chatcmpl-${Date.now()}`;
  }

  text(content: string): HubChunk {
    return this.chunk({ content });
  }

  reasoning(content: string): HubChunk {
    return this.chunk({ reasoning_content: content });
  }

  finish(reason: string): HubChunk {
    return this.chunk({}, reason);
  }

  private chunk(delta: Json, finish: string | null = null): HubChunk {
    return hubChunk(this.id, this.created, this.model, delta, finish);
  }
}

/** OpenAI embeddings `input` as a list of strings (a string, or strings; token arrays are not text). */
export function embeddingInputs(body: Json): string[] {
  const input = body.input;
  if (typeof input === 'string') return [input];
  if (Array.isArray(input)) return input.filter((item): item is string => typeof item === 'string');
  return [];
}

/** An OpenAI embeddings answer from vectors in input order. */
export function openAiEmbeddings(model: string, vectors: unknown[][]): Json {
  return {
    object: 'list',
    data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
    model,
  };
}
