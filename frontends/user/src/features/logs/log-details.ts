import type { LogRow } from './api';
import { effectiveGroupRatio, isPerCallPrice, type LogOther } from './log-other';

/** The translation function's shape as used here (i18next's TFunction fits it). */
type Translate = (key: string, values?: Record<string, unknown>) => string;

const num = (value: number | undefined, digits = 4) => (typeof value === 'number' ? String(Number(value.toFixed(digits))) : '-');

/** Hosted tools billed per call, as the relay logs them (`<tool>_call_count`, `<tool>_price` per 1000 calls). */
const TOOL_LINES = [
  ['web_search', 'webSearch'],
  ['file_search', 'fileSearch'],
  ['google_search', 'googleSearch'],
  ['google_maps', 'googleMaps'],
  ['image_generation', 'imageGeneration'],
] as const;

/** The billing lines of a row, from the ratios the relay recorded in `other`. */
export function detailLines(row: Pick<LogRow, 'content'>, other: LogOther, t: Translate): string[] {
  const lines: string[] = [];
  const groupRatio = effectiveGroupRatio(other);
  if (other.billing_mode === 'tiered_expr') {
    lines.push(t('logs.details.expression', { tier: other.matched_tier || '-', group: num(groupRatio) }));
    if (other.cache_tokens) lines.push(t('logs.details.cacheTokens', { tokens: other.cache_tokens }));
    for (const rule of other.request_rules ?? []) if (rule.matched) lines.push(t('logs.details.requestRule', rule));
    const facts = Object.entries(other.task_usage ?? {}).map(([key, value]) => `${key} ${value}`);
    if (facts.length) lines.push(t('logs.details.taskUsage', { facts: facts.join(', ') }));
  } else if (isPerCallPrice(other)) {
    lines.push(t('logs.details.perCall', { price: num(other.model_price), group: num(groupRatio) }));
  } else if (other.model_ratio !== undefined) {
    lines.push(t('logs.details.modelRatio', { value: num(other.model_ratio) }));
    lines.push(t('logs.details.completionRatio', { value: num(other.completion_ratio) }));
    lines.push(t('logs.details.groupRatio', { value: num(groupRatio) }));
    if (other.cache_tokens) lines.push(t('logs.details.cache', { tokens: other.cache_tokens, ratio: num(other.cache_ratio) }));
    if (other.cache_creation_tokens)
      lines.push(t('logs.details.cacheCreation', { tokens: other.cache_creation_tokens, ratio: num(other.cache_creation_ratio) }));
    if (other.image_output) lines.push(t('logs.details.imageInput', { tokens: other.image_output, ratio: num(other.image_ratio) }));
  }
  if (other.audio_input_token_count)
    lines.push(t('logs.details.audioInput', { tokens: other.audio_input_token_count, price: `$${num(other.audio_input_price)}` }));
  for (const [tool, label] of TOOL_LINES) {
    const calls = other[`${tool}_call_count`];
    if (calls) lines.push(t(`logs.details.${label}`, { calls, price: `$${num(other[`${tool}_price`])}` }));
  }
  if (other.status_code || other.error_type) {
    lines.push(t('logs.details.error', { status: other.status_code ?? '-', type: other.error_type || other.error_code || '-' }));
  }
  if (other.reasoning_effort) lines.push(t('logs.details.reasoning', { value: other.reasoning_effort }));
  if (other.admin_info?.local_count_tokens) lines.push(t('logs.details.localCount'));
  const affinity = other.admin_info?.channel_affinity;
  if (affinity?.rule_name) {
    const values = { rule: affinity.rule_name, key: affinity.key_hint ?? '-', channel: affinity.channel_id };
    lines.push(t(affinity.channel_id ? 'logs.details.affinityPinned' : 'logs.details.affinity', values));
  }
  if (row.content) lines.push(row.content);
  return lines;
}
