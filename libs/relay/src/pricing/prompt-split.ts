/** A token count as billed: never negative, never fractional. */
export function nonNegative(n: number | undefined): number {
  return n !== undefined && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/** The counts of one answer that settlement reads (the relay's Usage fits it). */
export interface BillableUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  cacheCreationTokens?: number;
  /** The part of cacheCreationTokens written with a 1-hour TTL (Anthropic). */
  cacheCreation1hTokens?: number;
  /** Input image tokens within the prompt (`prompt_tokens_details.image_tokens`, Gemini's IMAGE modality). */
  imageTokens?: number;
  /** Input audio tokens within the prompt (`prompt_tokens_details.audio_tokens`, Gemini's AUDIO modality). */
  audioTokens?: number;
}

/** A prompt split as it is billed; every part lies within the prompt (a provider's overlapping counts are cut). */
export interface PromptSplit {
  prompt: number;
  completion: number;
  /** Cache reads. */
  cached: number;
  /** Cache writes with the 5-minute TTL (or none given), and with the 1-hour TTL. */
  created5m: number;
  created1h: number;
  /** Input image tokens (priced at ImageRatio), cut to what the rest of the prompt leaves. */
  image: number;
  /** The prompt tokens that are none of these. */
  plain: number;
}

export function splitPrompt(usage: BillableUsage): PromptSplit {
  const prompt = nonNegative(usage.promptTokens);
  const cached = Math.min(nonNegative(usage.cachedTokens), prompt);
  const created = Math.min(nonNegative(usage.cacheCreationTokens), prompt - cached);
  const created1h = Math.min(nonNegative(usage.cacheCreation1hTokens), created);
  const image = Math.min(nonNegative(usage.imageTokens), prompt - cached - created);
  return {
    prompt,
    completion: nonNegative(usage.completionTokens),
    cached,
    created5m: created - created1h,
    created1h,
    image,
    plain: prompt - cached - created - image,
  };
}
