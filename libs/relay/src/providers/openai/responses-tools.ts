import type { ToolCalls, Usage } from '../../stream/usage.js';

/** The Responses API's output items of hosted tools, by the tool price they are billed at. */
const TOOL_ITEMS: Readonly<Record<string, keyof ToolCalls>> = {
  web_search_call: 'web_search_preview',
  file_search_call: 'file_search',
  image_generation_call: 'image_generation',
};

/** An image generation's tier key when it names its quality and size (new-api: `image_generation/<quality>/<size>`). */
function imageTier(item: { quality?: unknown; size?: unknown }): keyof ToolCalls {
  const quality = typeof item.quality === 'string' ? item.quality.trim().toLowerCase() : '';
  const size = typeof item.size === 'string' ? item.size.trim().toLowerCase() : '';
  return quality && size && quality !== 'auto' && size !== 'auto' ? `image_generation/${quality}/${size}` : 'image_generation';
}

/** The hosted tool calls in a Responses object's `output` (each web_search_call / file_search_call item is one). */
export function responsesToolCalls(response: unknown): ToolCalls | undefined {
  const output = typeof response === 'object' && response !== null ? (response as { output?: unknown }).output : undefined;
  if (!Array.isArray(output)) return undefined;
  const calls: ToolCalls = {};
  for (const item of output) {
    const type = typeof item === 'object' && item !== null ? (item as { type?: unknown }).type : undefined;
    const known = typeof type === 'string' && Object.hasOwn(TOOL_ITEMS, type) ? TOOL_ITEMS[type]! : undefined;
    const tool = known === 'image_generation' ? imageTier(item as { quality?: unknown; size?: unknown }) : known;
    if (tool) calls[tool] = (calls[tool] ?? 0) + 1;
  }
  return Object.keys(calls).length ? calls : undefined;
}

/**
 * The usage of a whole Responses answer with its hosted tool calls. The answer is parsed again only when it
 * names such an item (most answers do not), so plain answers keep their cheap usage scan.
 */
export function withResponsesToolCalls(usage: Usage, text: string): Usage {
  if (!text.includes('_call"')) return usage;
  try {
    const toolCalls = responsesToolCalls(JSON.parse(text));
    return toolCalls ? { ...usage, toolCalls } : usage;
  } catch {
    return usage;
  }
}
