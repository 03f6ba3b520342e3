import type { HubRequest, Json, ProviderSettings } from '../types.js';

/**
 * Anthropic Messages requests ⇄ OpenAI chat requests. Shapes: Anthropic's Messages API reference
 * (system as a string or text blocks; user/assistant content blocks text, image, tool_use, tool_result,
 * thinking; tools with input_schema; tool_choice auto/any/tool/none) and OpenAI's chat completions reference.
 */

/** Anthropic requires max_tokens; new-api's default when neither the client nor claude.default_max_tokens gives one. */
export const DEFAULT_CLAUDE_MAX_TOKENS = 8192;
/** Budgets a reasoning effort stands for when it becomes Anthropic's extended thinking. */
const EFFORT_BUDGET: Record<string, number> = { minimal: 1024, low: 1024, medium: 4096, high: 16384 };

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function blocksOf(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return blocksOf(content)
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

function imageUrlOf(source: Json): string | undefined {
  if (source.type === 'base64' && typeof source.data === 'string') return `data:${source.media_type ?? 'image/png'};base64,${source.data}`;
  if (source.type === 'url' && typeof source.url === 'string') return source.url;
  return undefined;
}

// ---------------------------------------------------------------- Anthropic → hub

export function anthropicToHub(body: Json, model: string, stream: boolean): HubRequest {
  const messages: Json[] = [];
  const system = textOf(body.system);
  if (system) messages.push({ role: 'system', content: system });
  for (const message of Array.isArray(body.messages) ? body.messages.filter(isObject) : []) {
    if (message.role === 'assistant') messages.push(assistantToHub(message.content));
    else messages.push(...userToHub(message.content));
  }
  const hub: HubRequest = { model, messages, stream };
  if (stream) hub.stream_options = { include_usage: true };
  if (typeof body.max_tokens === 'number') hub.max_tokens = body.max_tokens;
  for (const field of ['temperature', 'top_p', 'top_k'] as const) if (typeof body[field] === 'number') hub[field] = body[field];
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length) hub.stop = body.stop_sequences;
  if (typeof body.metadata?.user_id === 'string') hub.user = body.metadata.user_id;
  if (Array.isArray(body.tools) && body.tools.length) {
    hub.tools = body.tools
      .filter(isObject)
      .filter((t) => typeof t.name === 'string')
      .map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.input_schema ?? { type: 'object', properties: {} } },
      }));
  }
  const choice = body.tool_choice;
  if (isObject(choice)) {
    if (choice.type === 'any') hub.tool_choice = 'required';
    else if (choice.type === 'none') hub.tool_choice = 'none';
    else if (choice.type === 'tool' && typeof choice.name === 'string')
      hub.tool_choice = { type: 'function', function: { name: choice.name } };
    else hub.tool_choice = 'auto';
    if (choice.disable_parallel_tool_use === true) hub.parallel_tool_calls = false;
  }
  if (isObject(body.thinking) && body.thinking.type === 'enabled') {
    const budget = Number(body.thinking.budget_tokens) || 0;
    hub.reasoning_effort = budget >= 16384 ? 'high' : budget >= 4096 ? 'medium' : 'low';
  }
  return hub;
}

function userToHub(content: unknown): Json[] {
  const out: Json[] = [];
  const parts: Json[] = [];
  for (const block of blocksOf(content)) {
    if (block.type === 'tool_result') {
      out.push({
        role: 'tool',
        tool_call_id: String(block.tool_use_id ?? ''),
        content: textOf(block.content) || (block.is_error ? 'error' : ''),
      });
    } else if (block.type === 'text' && typeof block.text === 'string') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image' && isObject(block.source)) {
      const url = imageUrlOf(block.source);
      if (url) parts.push({ type: 'image_url', image_url: { url } });
    }
  }
  if (parts.length) {
    const onlyText = parts.every((p) => p.type === 'text');
    out.push({ role: 'user', content: onlyText ? parts.map((p) => p.text).join('\n') : parts });
  }
  return out;
}

function assistantToHub(content: unknown): Json {
  const message: Json = { role: 'assistant', content: '' };
  const calls: Json[] = [];
  let reasoning = '';
  let text = '';
  for (const block of blocksOf(content)) {
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block.type === 'thinking' && typeof block.thinking === 'string') reasoning += block.thinking;
    else if (block.type === 'tool_use') {
      calls.push({
        id: String(block.id ?? ''),
        type: 'function',
        function: { name: String(block.name ?? ''), arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  message.content = text;
  if (reasoning) message.reasoning_content = reasoning;
  if (calls.length) message.tool_calls = calls;
  return message;
}

// ---------------------------------------------------------------- hub → Anthropic

function hubPartsToBlocks(content: unknown): Json[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  const blocks: Json[] = [];
  for (const part of Array.isArray(content) ? content.filter(isObject) : []) {
    if (part.type === 'text' && typeof part.text === 'string') blocks.push({ type: 'text', text: part.text });
    else if (part.type === 'image_url') {
      const url = typeof part.image_url === 'string' ? part.image_url : part.image_url?.url;
      if (typeof url !== 'string') continue;
      const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
      blocks.push({ type: 'image', source: data ? { type: 'base64', media_type: data[1], data: data[2] } : { type: 'url', url } });
    }
  }
  return blocks;
}

function hubContentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return hubPartsToBlocks(content)
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

function parseArguments(text: unknown): Json {
  if (typeof text !== 'string' || !text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : { value };
  } catch {
    return { raw: text };
  }
}

/** Anthropic wants strictly alternating roles: consecutive turns of one role are merged. */
function push(messages: Json[], role: 'user' | 'assistant', blocks: Json[]): void {
  if (!blocks.length) return;
  const last = messages[messages.length - 1];
  if (last?.role === role) last.content.push(...blocks);
  else messages.push({ role, content: blocks });
}

export function hubToAnthropic(hub: HubRequest, model: string, settings: ProviderSettings): Json {
  const system: string[] = [];
  const messages: Json[] = [];
  for (const message of Array.isArray(hub.messages) ? hub.messages.filter(isObject) : []) {
    if (message.role === 'system' || message.role === 'developer') {
      const text = hubContentText(message.content);
      if (text) system.push(text);
    } else if (message.role === 'tool') {
      push(messages, 'user', [
        { type: 'tool_result', tool_use_id: String(message.tool_call_id ?? ''), content: hubContentText(message.content) },
      ]);
    } else if (message.role === 'assistant') {
      const blocks = hubPartsToBlocks(message.content);
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : []) {
        blocks.push({
          type: 'tool_use',
          id: String(call.id ?? ''),
          name: String(call.function?.name ?? ''),
          input: parseArguments(call.function?.arguments),
        });
      }
      push(messages, 'assistant', blocks);
    } else push(messages, 'user', hubPartsToBlocks(message.content));
  }
  const body: Json = { model, messages, max_tokens: maxTokensFor(hub, model, settings) };
  if (system.length) body.system = system.join('\n');
  if (hub.stream === true) body.stream = true;
  for (const field of ['temperature', 'top_p', 'top_k'] as const) if (typeof hub[field] === 'number') body[field] = hub[field];
  const stop = typeof hub.stop === 'string' ? [hub.stop] : Array.isArray(hub.stop) ? hub.stop : [];
  if (stop.length) body.stop_sequences = stop;
  if (typeof hub.user === 'string') body.metadata = { user_id: hub.user };
  if (Array.isArray(hub.tools) && hub.tools.length) {
    body.tools = hub.tools
      .filter((t: unknown) => isObject(t) && isObject(t.function))
      .map((t: Json) => ({
        name: t.function.name,
        description: t.function.description,
        input_schema: t.function.parameters ?? { type: 'object', properties: {} },
      }));
  }
  const choice = hub.tool_choice;
  if (choice === 'required') body.tool_choice = { type: 'any' };
  else if (choice === 'none') body.tool_choice = { type: 'none' };
  else if (choice === 'auto') body.tool_choice = { type: 'auto' };
  else if (isObject(choice) && typeof choice.function?.name === 'string') body.tool_choice = { type: 'tool', name: choice.function.name };
  if (hub.parallel_tool_calls === false && body.tool_choice) body.tool_choice.disable_parallel_tool_use = true;
  const budget = typeof hub.reasoning_effort === 'string' ? EFFORT_BUDGET[hub.reasoning_effort] : undefined;
  if (budget) {
    // Anthropic needs max_tokens above the budget, and no temperature other than 1 while thinking.
    body.thinking = { type: 'enabled', budget_tokens: Math.min(budget, Math.max(1024, body.max_tokens - 1)) };
    if (body.max_tokens <= body.thinking.budget_tokens) body.max_tokens = body.thinking.budget_tokens + 1024;
    delete body.temperature;
  }
  return body;
}

/** The client's max_tokens, else claude.default_max_tokens (per model, then its `default` key), else 8192. */
export function maxTokensFor(hub: HubRequest, model: string, settings: ProviderSettings): number {
  for (const field of ['max_tokens', 'max_completion_tokens']) {
    const value = hub[field];
    if (typeof value === 'number' && value > 0) return value;
  }
  const defaults = settings.get<Record<string, number>>('claude.default_max_tokens') ?? {};
  const configured = Number(defaults[model] ?? defaults.default);
  return Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_CLAUDE_MAX_TOKENS;
}
