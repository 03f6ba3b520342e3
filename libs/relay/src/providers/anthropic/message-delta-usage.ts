import type { Json } from '../types.js';

const TOTALS = ['input_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const;
const SPLIT = ['ephemeral_5m_input_tokens', 'ephemeral_1h_input_tokens'] as const;

const objectOr = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});
const positive = (value: unknown): number => (typeof value === 'number' && value > 0 ? value : 0);

/**
 * The usage a Claude stream's message_delta should carry for clients that read it there alone (the Anthropic
 * SDK overwrites its input and cache counts with the delta's), completed as new-api's Claude relay does
 * (relay/channel/claude: buildMessageDeltaPatchUsage, patchClaudeMessageDeltaUsageData). `seen` is the usage
 * the stream reported so far (message_start's, with later counts above 0 over it).
 *
 * - input_tokens, cache_read_input_tokens and cache_creation_input_tokens the delta sends as 0 or leaves out
 *   are filled from `seen` when that is above 0 (Bedrock and proxies leave them out or send 0);
 * - cache_creation's TTL split is the delta's own if it has one, else the one seen; the writes it does not
 *   account for count as 5-minute writes; its counts are filled the same way, the object added when it has one
 *   above 0;
 * - a count the delta sends above 0 is kept, and every other field is kept as sent.
 *
 * Undefined when nothing is to be filled (the event then goes out unchanged).
 */
export function completeMessageDeltaUsage(delta: unknown, seen: Json): Json | undefined {
  const own = objectOr(delta);
  const filled: Json = {};
  for (const key of TOTALS) if (!positive(own[key]) && positive(seen[key])) filled[key] = seen[key];

  const created = positive(own.cache_creation_input_tokens) || positive(seen.cache_creation_input_tokens);
  const ownSplit = objectOr(own.cache_creation);
  const split = own.cache_creation !== undefined && own.cache_creation !== null ? ownSplit : objectOr(seen.cache_creation);
  const oneHour = positive(split.ephemeral_1h_input_tokens);
  const fiveMinutes = positive(split.ephemeral_5m_input_tokens);
  const local = {
    ephemeral_5m_input_tokens: fiveMinutes + Math.max(created - fiveMinutes - oneHour, 0),
    ephemeral_1h_input_tokens: oneHour,
  };
  const filledSplit: Json = {};
  for (const key of SPLIT) if (local[key] > 0 && !positive(ownSplit[key])) filledSplit[key] = local[key];

  if (!Object.keys(filled).length && !Object.keys(filledSplit).length) return undefined;
  const usage: Json = { ...own, ...filled };
  if (Object.keys(filledSplit).length) usage.cache_creation = { ...ownSplit, ...filledSplit };
  return usage;
}
