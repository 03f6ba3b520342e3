import type { AudioUsage } from '../pricing/billing-formulas.js';

/** Upper bound for one count: anything above is a broken or hostile upstream (threats M2/M3). */
const MAX_TOKENS_PER_FIELD = 100_000_000;

const DONE_TYPE = Buffer.from('"response.done"');

function count(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.min(Math.floor(n), MAX_TOKENS_PER_FIELD);
}

function objectAt(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * A Realtime `usage` object (`response.done`'s `response.usage`) as billed: every part clamped into its total,
 * so an upstream can never produce a negative or inflated charge. Input that is neither text nor audio stays
 * in the input (billed as text). Undefined when it holds no token.
 */
export function readRealtimeUsage(raw: unknown): AudioUsage | undefined {
  const usage = objectAt(raw);
  if (!usage) return undefined;
  const inputTokens = count(usage.input_tokens);
  const outputTokens = count(usage.output_tokens);
  if (inputTokens + outputTokens === 0) return undefined;
  const input = objectAt(usage.input_token_details);
  const output = objectAt(usage.output_token_details);
  const inputAudioTokens = Math.min(count(input?.audio_tokens), inputTokens);
  const cachedTokens = Math.min(count(input?.cached_tokens), inputTokens);
  const cachedAudio = count(objectAt(input?.cached_tokens_details)?.audio_tokens);
  return {
    inputTokens,
    outputTokens,
    inputAudioTokens,
    outputAudioTokens: Math.min(count(output?.audio_tokens), outputTokens),
    cachedTokens,
    cachedAudioTokens: Math.min(cachedAudio, cachedTokens, inputAudioTokens),
  };
}

/** A `response.done` event: the provider's usage, undefined when it sent none (a zero usage is reported as zero). */
export interface ResponseDone {
  usage?: AudioUsage;
}

/**
 * A `response.done` event frame, or undefined for any other frame. Only a text frame that mentions the type is
 * parsed, so audio deltas (most of the traffic) cost one byte search.
 */
export function readResponseDone(frame: Buffer): ResponseDone | undefined {
  if (frame.indexOf(DONE_TYPE) < 0) return undefined;
  let event: unknown;
  try {
    event = JSON.parse(frame.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = objectAt(event);
  if (parsed?.type !== 'response.done') return undefined;
  const raw = objectAt(parsed.response)?.usage;
  return { usage: objectAt(raw) ? (readRealtimeUsage(raw) ?? NO_USAGE) : undefined };
}

export function addUsage(a: AudioUsage, b: AudioUsage): AudioUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    inputAudioTokens: a.inputAudioTokens + b.inputAudioTokens,
    outputAudioTokens: a.outputAudioTokens + b.outputAudioTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    cachedAudioTokens: a.cachedAudioTokens + b.cachedAudioTokens,
  };
}

export const NO_USAGE: AudioUsage = {
  inputTokens: 0,
  outputTokens: 0,
  inputAudioTokens: 0,
  outputAudioTokens: 0,
  cachedTokens: 0,
  cachedAudioTokens: 0,
};
