import type { BilledTool, GroundingFacts, ToolCalls, Usage } from '../stream/usage.js';

/**
 * new-api's built-in tool prices, US$ per 1000 calls; `tool_price_setting.prices` overrides them by key. A key
 * `tool:prefix*` prices the tool for models whose name starts with the prefix (the longest prefix wins).
 */
const DEFAULT_TOOL_PRICES: Readonly<Record<string, number>> = {
  web_search: 10,
  web_search_preview: 10,
  file_search: 2.5,
  google_search: 14,
  /** Google's price of Maps grounding (new-api has no default of its own). */
  google_maps: 25,
  image_generation: 150,
  'web_search_preview:gpt-4o*': 25,
  'web_search_preview:gpt-4.1*': 25,
  'web_search_preview:gpt-4o-mini*': 25,
  'web_search_preview:gpt-4.1-mini*': 25,
};

/** The tools the relay counts, in the order the log names them. */
const BILLED_TOOLS: readonly BilledTool[] = [
  'web_search_preview',
  'web_search',
  'file_search',
  'google_search',
  'google_maps',
  'image_generation',
];

/** One tool's calls in an answer and the price they are billed at (US$ per 1000 calls). */
export interface ToolCharge {
  /** A billed tool, or an image generation tier (`image_generation/high/1024x1024`). */
  tool: string;
  calls: number;
  price: number;
}

/** The tool a tier belongs to: `image_generation/high/1024x1024` → `image_generation`. */
export const toolOf = (tool: string): string => tool.split('/')[0]!;

/**
 * The price of `tool` for `model`: the longest matching `tool:prefix*` key, else the tool's own key; a tier
 * without a price of its own is priced as its tool (new-api's image_generation tiers); else 0.
 */
export function toolPrice(overrides: Readonly<Record<string, number>>, tool: string, model: string): number {
  const prices: Record<string, number> = { ...DEFAULT_TOOL_PRICES };
  for (const [key, price] of Object.entries(overrides)) if (Number.isFinite(price) && price >= 0) prices[key] = price;
  let best: { prefix: string; price: number } | undefined;
  for (const [key, price] of Object.entries(prices)) {
    if (!key.startsWith(`${tool}:`)) continue;
    const prefix = key.slice(tool.length + 1).replace(/\*$/, '');
    if (!model.startsWith(prefix)) continue;
    if (!best || prefix.length > best.prefix.length || (prefix.length === best.prefix.length && prefix < best.prefix))
      best = { prefix, price };
  }
  if (best) return best.price;
  if (Object.hasOwn(prices, tool)) return prices[tool]!;
  return toolOf(tool) === tool ? 0 : toolPrice(overrides, toolOf(tool), model);
}

/** Models Google bills per search query of a grounded prompt; older ones are billed once per grounded prompt. */
function billsPerQuery(model: string): boolean {
  return (
    model.startsWith('gemini-3') ||
    model === 'gemini-flash-latest' ||
    model === 'gemini-flash-lite-latest' ||
    model === 'gemini-pro-latest' ||
    model.startsWith('gemini-robotics-er-1.6')
  );
}

/**
 * A Gemini answer's grounding as billed calls (new-api's rule, by the model Google ran): Gemini 3 per search
 * query (a source without queries proves one), Maps alone as google_maps; older models once per grounded answer.
 */
export function groundingCalls(facts: GroundingFacts | undefined, upstreamModel: string): ToolCalls {
  if (!facts) return {};
  const sources = facts.web || facts.image || facts.maps;
  if (billsPerQuery(upstreamModel)) {
    const calls = facts.queries || (sources ? 1 : 0);
    if (!calls) return {};
    return facts.maps && !facts.web && !facts.image ? { google_maps: calls } : { google_search: calls };
  }
  if (facts.maps) return { google_maps: 1 };
  return facts.queries > 0 || sources ? { google_search: 1 } : {};
}

/**
 * The tool calls an answer is billed for: those its usage counted, its Gemini grounding by the upstream model, and
 * for a chat with a search-preview model (gpt-4o-search-preview, ...) one web search per request, as new-api bills
 * them. Prices are looked up by the client's model name.
 */
export function toolCharges(
  usage: Usage,
  model: string,
  chat: boolean,
  overrides: Readonly<Record<string, number>>,
  upstreamModel = model,
): ToolCharge[] {
  const calls: Record<string, number | undefined> = { ...usage.toolCalls, ...groundingCalls(usage.grounding, upstreamModel) };
  if (chat && !calls.web_search_preview && model.endsWith('search-preview')) calls.web_search_preview = 1;
  const order = (tool: string) => BILLED_TOOLS.indexOf(toolOf(tool) as BilledTool);
  return Object.entries(calls)
    .filter((entry): entry is [string, number] => (entry[1] ?? 0) > 0 && order(entry[0]) >= 0)
    .sort((a, b) => order(a[0]) - order(b[0]) || a[0].localeCompare(b[0]))
    .map(([tool, n]) => ({ tool, calls: n, price: toolPrice(overrides, tool, model) }));
}

/** What the calls cost in quota: price per 1000 × calls × QuotaPerUnit × the group ratio (not rounded). */
export function toolSurcharge(charges: readonly ToolCharge[], quotaPerUnit: number, groupRatio: number): number {
  return charges.reduce((sum, charge) => sum + ((charge.price * charge.calls) / 1000) * quotaPerUnit * groupRatio, 0);
}
