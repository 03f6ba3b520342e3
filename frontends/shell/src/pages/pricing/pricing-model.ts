export interface PricingRow {
  model_name: string;
  /** 0 = billed per token (by ratio), otherwise a fixed price per call. */
  quota_type: number;
  model_ratio: number;
  completion_ratio: number;
  model_price: number;
  enable_groups: string[];
  /** Billed by an expression (US$ per 1M tokens, tiers and multipliers) instead of ratios. */
  billing_mode?: 'tiered_expr';
  billing_expr?: string;
}

export interface PricingExtra {
  group_ratio: Record<string, number>;
  usable_group: Record<string, string>;
}

/** Billing type first, then models whose name starts with "gpt", then alphabetical (spec 001 Pricing page). */
export function comparePricing(a: PricingRow, b: PricingRow): number {
  if (a.quota_type !== b.quota_type) return a.quota_type - b.quota_type;
  const aGpt = a.model_name.toLowerCase().startsWith('gpt');
  const bGpt = b.model_name.toLowerCase().startsWith('gpt');
  if (aGpt !== bGpt) return aGpt ? -1 : 1;
  return a.model_name.localeCompare(b.model_name);
}

/** Fuzzy: every typed character appears in the name, in order ("g4m" finds "gpt-4o-mini"). */
export function fuzzyMatch(name: string, query: string): boolean {
  const needle = query.trim().toLowerCase();
  if (!needle) return true;
  const haystack = name.toLowerCase();
  let from = 0;
  for (const char of needle) {
    const at = haystack.indexOf(char, from);
    if (at < 0) return false;
    from = at + 1;
  }
  return true;
}

export function isAvailable(row: PricingRow, group: string): boolean {
  return row.enable_groups.includes(group) || row.enable_groups.includes('all');
}

/** US$ per 1M tokens: ratio 1 = $2; the completion side multiplies by the completion ratio. */
export function tokenPrices(row: PricingRow, groupRatio: number) {
  const prompt = row.model_ratio * 2 * groupRatio;
  return { prompt, completion: prompt * row.completion_ratio };
}

export const formatUsd = (value: number) => `$${Number(value.toFixed(6))}`;
