import type { HubRequest, Json, ProviderSettings } from '../types.js';

/**
 * Anthropic Messages requests ⇄ OpenAI chat requests. Shapes: Anthropic's Messages API reference
 * (system as a string or text blocks; user/assistant content blocks text, image, tool_use, tool_result,
 * thinking; tools with input_schema; tool_choice auto/any/tool/none) and OpenAI's chat completions reference.
 */

/** Anthropic requires max_tokens; new-api's default when neither the client nor claude.default_max_tokens gives one. */
export const DEFAULT_CLAUDE_MAX_TOKENS = 8192;
/** Budgets a reasoning effort stands for when it becomes Anthropic's extended thinking (new-api's values). */
const EFFORT_BUDGET: Record<string, number> = { low: 1280, medium: 2048, high: 4096 };
/** Anthropic's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1024;
/** Room kept for the answer itself above the thinking budget, so thinking cannot use up max_tokens. */
const MIN_ANSWER_TOKENS = 1024;

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

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** A base64 source as Anthropic takes it: a PDF is a document block, anything else an image block. */
function base64Block(mediaType: string, data: string): Json {
  const type = mediaType.toLowerCase() === 'application/pdf' ? 'document' : 'image';
  return { type, source: { type: 'base64', media_type: mediaType, data } };
}

/**
 * OpenAI's `file` part ({file: {file_data, filename}}): a PDF becomes a document block (as in new-api); a file
 * id cannot be resolved here and other files have no Anthropic block, so they are dropped.
 */
function fileBlock(file: unknown): Json | undefined {
  if (!isObject(file) || typeof file.file_data !== 'string' || !file.file_data) return undefined;
  const data = DATA_URL.exec(file.file_data);
  if (data) return data[1]!.toLowerCase() === 'application/pdf' ? base64Block(data[1]!, data[2]!) : undefined;
  return typeof file.filename === 'string' && /\.pdf$/i.test(file.filename) ? base64Block('application/pdf', file.file_data) : undefined;
}

function hubPartsToBlocks(content: unknown): Json[] {
  // Anthropic refuses empty text blocks ("text content blocks must be non-empty").
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  const blocks: Json[] = [];
  for (const part of Array.isArray(content) ? content.filter(isObject) : []) {
    if (part.type === 'text' && typeof part.text === 'string') {
      if (part.text) blocks.push({ type: 'text', text: part.text });
    } else if (part.type === 'image_url') {
      const url = typeof part.image_url === 'string' ? part.image_url : part.image_url?.url;
      if (typeof url !== 'string') continue;
      const data = DATA_URL.exec(url);
      blocks.push(data ? base64Block(data[1]!, data[2]!) : { type: 'image', source: { type: 'url', url } });
    } else if (part.type === 'file') {
      const block = fileBlock(part.file);
      if (block) blocks.push(block);
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
  const choice = toolChoiceOf(hub.tool_choice, hub.parallel_tool_calls, Array.isArray(body.tools) && body.tools.length > 0);
  if (choice) body.tool_choice = choice;
  const budget = thinkingBudgetOf(hub);
  if (budget) {
    // Anthropic needs max_tokens above the budget; the budget is cut so that at least MIN_ANSWER_TOKENS stay for
    // the answer, and max_tokens raised when even the smallest budget does not fit.
    const cut = Math.min(budget, Math.max(MIN_THINKING_BUDGET, body.max_tokens - MIN_ANSWER_TOKENS));
    body.thinking = { type: 'enabled', budget_tokens: cut };
    if (body.max_tokens < cut + MIN_ANSWER_TOKENS) body.max_tokens = cut + MIN_ANSWER_TOKENS;
    // While thinking, Anthropic takes no temperature other than 1, no top_k and a top_p of 0.95 or more.
    delete body.temperature;
    delete body.top_k;
    if (typeof body.top_p === 'number' && body.top_p < 0.95) delete body.top_p;
  }
  return body;
}

/**
 * OpenAI's tool_choice and parallel_tool_calls as Anthropic's tool_choice (new-api's mapToolChoice):
 * parallel_tool_calls false is `disable_parallel_tool_use` (on an `auto` choice when none was given), never on
 * `none`, which takes no other field.
 */
function toolChoiceOf(choice: unknown, parallel: unknown, hasTools: boolean): Json | undefined {
  let out: Json | undefined;
  if (choice === 'required') out = { type: 'any' };
  else if (choice === 'none') out = { type: 'none' };
  else if (choice === 'auto') out = { type: 'auto' };
  else if (isObject(choice) && typeof choice.function?.name === 'string') out = { type: 'tool', name: choice.function.name };
  if (parallel === false && out?.type !== 'none') {
    if (!out && !hasTools) return undefined;
    out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  }
  return out;
}

/** The thinking budget a request asks for: reasoning.max_tokens (OpenRouter's form) first, else reasoning_effort. */
function thinkingBudgetOf(hub: HubRequest): number | undefined {
  const explicit = isObject(hub.reasoning) ? Number(hub.reasoning.max_tokens) : Number.NaN;
  if (Number.isInteger(explicit) && explicit > 0) return Math.max(MIN_THINKING_BUDGET, explicit);
  return typeof hub.reasoning_effort === 'string' ? EFFORT_BUDGET[hub.reasoning_effort] : undefined;
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
