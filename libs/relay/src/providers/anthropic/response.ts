import type { Usage } from '../../stream/usage.js';
import type { HubResponse, Json } from '../types.js';

/**
 * Anthropic Messages answers ⇄ OpenAI chat completions. Shapes: Anthropic's Messages API reference
 * (content blocks text / thinking / tool_use; stop_reason end_turn, max_tokens, stop_sequence, tool_use,
 * pause_turn, refusal; usage input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens).
 */

const MAX_TOKENS_PER_FIELD = 100_000_000;

function count(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), MAX_TOKENS_PER_FIELD) : 0;
}

/**
 * Anthropic's usage in the relay's terms. Anthropic's input_tokens excludes cache reads and writes, so the
 * prompt is their sum; cache reads and writes are then billed at their own ratios. Cache writes are split by
 * TTL in `cache_creation` (ephemeral_5m / ephemeral_1h): as in new-api, the writes are the larger of the total
 * and the split's sum, and the 1-hour part is billed at its own, higher ratio.
 */
export function anthropicUsage(raw: unknown): Usage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const u = raw as Json;
  const read = count(u.cache_read_input_tokens);
  const split = typeof u.cache_creation === 'object' && u.cache_creation !== null ? (u.cache_creation as Json) : {};
  const oneHour = count(split.ephemeral_1h_input_tokens);
  const created = Math.max(count(u.cache_creation_input_tokens), count(split.ephemeral_5m_input_tokens) + oneHour);
  const promptTokens = count(u.input_tokens) + read + created;
  const completionTokens = count(u.output_tokens);
  if (promptTokens === 0 && completionTokens === 0) return undefined;
  const usage: Usage = { promptTokens, completionTokens, cachedTokens: read, cacheCreationTokens: created };
  if (oneHour > 0) usage.cacheCreation1hTokens = oneHour;
  // Anthropic's server-side web search, billed per search on top of the tokens.
  const searches = count((u.server_tool_use as Json | undefined)?.web_search_requests);
  if (searches > 0) usage.toolCalls = { web_search: searches };
  return usage;
}

/** The relay's usage back in Anthropic's terms (input_tokens without the cache). */
export function toAnthropicUsage(usage: Usage): Json {
  const created = usage.cacheCreationTokens ?? 0;
  const out: Json = {
    input_tokens: Math.max(0, usage.promptTokens - usage.cachedTokens - created),
    output_tokens: usage.completionTokens,
    cache_read_input_tokens: usage.cachedTokens,
    cache_creation_input_tokens: created,
  };
  const oneHour = Math.min(usage.cacheCreation1hTokens ?? 0, created);
  if (oneHour > 0) out.cache_creation = { ephemeral_5m_input_tokens: created - oneHour, ephemeral_1h_input_tokens: oneHour };
  return out;
}

const STOP_TO_FINISH: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};
const FINISH_TO_STOP: Record<string, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

export const finishReasonOf = (stop: unknown): string => STOP_TO_FINISH[String(stop)] ?? 'stop';
export const stopReasonOf = (finish: unknown): string => FINISH_TO_STOP[String(finish)] ?? 'end_turn';

export function anthropicResponseToHub(native: Json, model: string): { response: HubResponse; usage?: Usage } {
  let text = '';
  let reasoning = '';
  const calls: Json[] = [];
  for (const block of Array.isArray(native.content) ? native.content : []) {
    if (block?.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block?.type === 'thinking' && typeof block.thinking === 'string') reasoning += block.thinking;
    else if (block?.type === 'tool_use') {
      calls.push({
        id: String(block.id ?? ''),
        type: 'function',
        function: { name: String(block.name ?? ''), arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const message: Json = { role: 'assistant', content: text };
  if (reasoning) message.reasoning_content = reasoning;
  if (calls.length) message.tool_calls = calls;
  const response: HubResponse = {
    id: String(native.id ?? ''),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: finishReasonOf(native.stop_reason) }],
  };
  return { response, usage: anthropicUsage(native.usage) };
}

export function hubToAnthropicResponse(hub: HubResponse, usage: Usage, model: string): Json {
  const choice = Array.isArray(hub.choices) ? hub.choices[0] : undefined;
  const message = choice?.message ?? {};
  const content: Json[] = [];
  if (typeof message.reasoning_content === 'string' && message.reasoning_content)
    content.push({ type: 'thinking', thinking: message.reasoning_content, signature: '' });
  const text = typeof message.content === 'string' ? message.content : '';
  if (text) content.push({ type: 'text', text });
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    content.push({
      type: 'tool_use',
      id: String(call?.id ?? ''),
      name: String(call?.function?.name ?? ''),
      input: parseInput(call?.function?.arguments),
    });
  }
  return {
    id: toMessageId(hub.id),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReasonOf(choice?.finish_reason),
    stop_sequence: null,
    usage: toAnthropicUsage(usage),
  };
}

export function toMessageId(id: unknown): string {
  const text = typeof id === 'string' && id ? id : `${Date.now()}`;
  return text.startsWith('msg_') ? text : `msg_${text.replace(/^chatcmpl-/, '')}`;
}

export function parseInput(text: unknown): Json {
  if (typeof text !== 'string' || !text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : { value };
  } catch {
    return { raw: text };
  }
}
