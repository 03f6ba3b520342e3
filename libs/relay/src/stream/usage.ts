/** Token counts of one answer, as billed. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  /** Tokens written to the provider's prompt cache (Anthropic), billed at the cache-creation ratio. */
  cacheCreationTokens?: number;
  /**
   * The part of cacheCreationTokens written with Anthropic's 1-hour TTL (`usage.cache_creation.ephemeral_1h_input_tokens`),
   * billed at the 1-hour creation ratio (new-api: the creation ratio × 6/3.75); the rest is billed as 5-minute writes.
   */
  cacheCreation1hTokens?: number;
  /**
   * Calls of the provider's own tools, billed per call on top of the tokens (tool_price_setting): Anthropic's
   * `server_tool_use.web_search_requests` (web_search), the Responses API's web_search_call and
   * file_search_call and image_generation_call output items (web_search_preview, file_search, image_generation).
   */
  toolCalls?: ToolCalls;
  /** Gemini's Google Search / Maps grounding of the answer; what it costs depends on the upstream model (tool-prices). */
  grounding?: GroundingFacts;
  /** Input image tokens within promptTokens (`prompt_tokens_details.image_tokens`), billed at ImageRatio. */
  imageTokens?: number;
  /** Input audio tokens within promptTokens (`prompt_tokens_details.audio_tokens`); Gemini models price them apart. */
  audioTokens?: number;
}

/** What grounded a Gemini answer: distinct search queries (a stream's snapshots never summed) and source kinds. */
export interface GroundingFacts {
  queries: number;
  web: boolean;
  image: boolean;
  maps: boolean;
}

export type BilledTool = 'web_search' | 'web_search_preview' | 'file_search' | 'google_search' | 'google_maps' | 'image_generation';
/** Calls by tool; an image generation may name its tier, `image_generation/<quality>/<size>` (priced apart when set). */
export type ToolCalls = Partial<Record<BilledTool | `image_generation/${string}`, number>>;

/** Upper bound for one count: anything above is a broken or hostile upstream (threats M2/M3). */
const MAX_TOKENS_PER_FIELD = 100_000_000;

function count(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.min(Math.floor(n), MAX_TOKENS_PER_FIELD);
}

/**
 * Reads an OpenAI `usage` object. Negative, fractional, huge or missing counts are clamped, so an upstream
 * can never produce a negative charge. Returns undefined when there is no usable usage at all.
 */
export function readUsage(raw: unknown): Usage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const usage = raw as Record<string, unknown>;
  const details = (usage.prompt_tokens_details ?? usage.input_tokens_details) as Record<string, unknown> | undefined;
  // Rerank answers (Jina) report only total_tokens: all of it is input.
  const promptTokens = count(
    usage.prompt_tokens ?? usage.input_tokens ?? (usage.completion_tokens === undefined ? usage.total_tokens : undefined),
  );
  const completionTokens = count(usage.completion_tokens ?? usage.output_tokens);
  if (promptTokens === 0 && completionTokens === 0) return undefined;
  // DeepSeek reports its prompt cache hits as `prompt_cache_hit_tokens` (part of prompt_tokens), not in the details.
  const cachedTokens = Math.min(count(details?.cached_tokens ?? usage.cached_tokens ?? usage.prompt_cache_hit_tokens), promptTokens);
  const read: Usage = { promptTokens, completionTokens, cachedTokens };
  const imageTokens = Math.min(count(details?.image_tokens), promptTokens);
  if (imageTokens) read.imageTokens = imageTokens;
  const audioTokens = Math.min(count(details?.audio_tokens), promptTokens);
  if (audioTokens) read.audioTokens = audioTokens;
  return read;
}

/**
 * Finds the top-level-looking `"usage": {...}` object in a JSON text and parses only that object, so a
 * large answer is not parsed whole just to bill it. The last occurrence is taken (usage comes last).
 */
export function findUsageInJson(text: string): Usage | undefined {
  let at = text.lastIndexOf('"usage"');
  while (at >= 0) {
    const open = objectStartAfterKey(text, at + 7);
    if (open >= 0) {
      const close = matchingBrace(text, open);
      if (close > open) {
        try {
          return readUsage(JSON.parse(text.slice(open, close + 1)));
        } catch {
          return undefined;
        }
      }
    }
    at = at > 0 ? text.lastIndexOf('"usage"', at - 1) : -1;
  }
  return undefined;
}

function objectStartAfterKey(text: string, from: number): number {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  if (text[i] !== ':') return -1;
  i++;
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return text[i] === '{' ? i : -1;
}

function matchingBrace(text: string, open: number): number {
  let depth = 0;
  let inString = false;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123) depth++;
    else if (c === 125 && --depth === 0) return i;
  }
  return -1;
}

export function toOpenAiUsage(usage: Usage): Record<string, unknown> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens },
  };
}
