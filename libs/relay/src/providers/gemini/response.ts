import { randomUUID } from 'node:crypto';
import type { Usage } from '../../stream/usage.js';
import type { HubResponse, Json } from '../types.js';
import { GroundingTally } from './grounding.js';

/**
 * Gemini generateContent answers ⇄ OpenAI chat completions. Shapes: Google's Gemini API reference
 * (candidates[{content{role model, parts[text (thought) | functionCall]}, finishReason}], usageMetadata
 * {promptTokenCount, candidatesTokenCount, thoughtsTokenCount, cachedContentTokenCount, totalTokenCount}).
 */

const MAX_TOKENS_PER_FIELD = 100_000_000;

function count(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), MAX_TOKENS_PER_FIELD) : 0;
}

/**
 * Gemini's usageMetadata in the relay's terms, as new-api reads it: the prompt is promptTokenCount plus
 * toolUsePromptTokenCount (what grounding and other tools read), already including the cache; thoughts are
 * output; without candidatesTokenCount the output is the total minus the prompt.
 */
export function geminiUsage(raw: unknown): Usage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const u = raw as Json;
  const promptTokens = Math.min(count(u.promptTokenCount) + count(u.toolUsePromptTokenCount), MAX_TOKENS_PER_FIELD);
  let completionTokens = count(u.candidatesTokenCount) + count(u.thoughtsTokenCount);
  if (completionTokens === 0) completionTokens = Math.max(0, count(u.totalTokenCount) - promptTokens);
  if (promptTokens === 0 && completionTokens === 0) return undefined;
  const usage: Usage = { promptTokens, completionTokens, cachedTokens: Math.min(count(u.cachedContentTokenCount), promptTokens) };
  // Images and audio in the prompt (and in what tools read), as new-api reads the IMAGE and AUDIO modalities.
  const imageTokens = Math.min(
    modalityTokens(u.promptTokensDetails, 'IMAGE') + modalityTokens(u.toolUsePromptTokensDetails, 'IMAGE'),
    promptTokens,
  );
  if (imageTokens) usage.imageTokens = imageTokens;
  const audioTokens = Math.min(
    modalityTokens(u.promptTokensDetails, 'AUDIO') + modalityTokens(u.toolUsePromptTokensDetails, 'AUDIO'),
    promptTokens,
  );
  if (audioTokens) usage.audioTokens = audioTokens;
  return usage;
}

/** The tokens of one modality in a Gemini `[{modality, tokenCount}]` list. */
function modalityTokens(details: unknown, modality: string): number {
  if (!Array.isArray(details)) return 0;
  let total = 0;
  for (const detail of details) if ((detail as Json)?.modality === modality) total += count((detail as Json).tokenCount);
  return Math.min(total, MAX_TOKENS_PER_FIELD);
}

export function toGeminiUsage(usage: Usage): Json {
  const out: Json = {
    promptTokenCount: usage.promptTokens,
    candidatesTokenCount: usage.completionTokens,
    totalTokenCount: usage.promptTokens + usage.completionTokens,
  };
  if (usage.cachedTokens) out.cachedContentTokenCount = usage.cachedTokens;
  return out;
}

/**
 * Gemini's finishReason as OpenAI's (new-api's mapping): a function call is `tool_calls`, STOP `stop`,
 * MAX_TOKENS `length`, and every other reason (SAFETY, RECITATION, OTHER, MALFORMED_FUNCTION_CALL, ...) is
 * `content_filter`. null while the candidate is not finished.
 */
export function finishReasonOf(reason: unknown, calledTools: boolean): string | null {
  if (reason === undefined || reason === null || reason === '' || reason === 'FINISH_REASON_UNSPECIFIED') return null;
  if (calledTools) return 'tool_calls';
  if (reason === 'STOP') return 'stop';
  if (reason === 'MAX_TOKENS') return 'length';
  return 'content_filter';
}

/** A prompt Gemini refused to answer: no candidates, and promptFeedback.blockReason says why. */
function promptBlocked(native: Json): boolean {
  const candidates = Array.isArray(native.candidates) ? native.candidates : [];
  return candidates.length === 0 && typeof native.promptFeedback?.blockReason === 'string';
}

/** The error message new-api gives a converted client for a refused prompt, else undefined. */
export function blockedPromptMessage(native: Json): string | undefined {
  return promptBlocked(native) ? `request blocked by Gemini API: ${native.promptFeedback.blockReason}` : undefined;
}

/** A tool call id, unique per call (new-api: call_<uuid>), so that ids never repeat across a conversation's turns. */
export function toolCallId(): string {
  return `call_${randomUUID().replace(/-/g, '')}`;
}

/**
 * The text an answer part stands for in OpenAI's message content, as new-api writes it: an inline image as a
 * Markdown data-URL image, other inline media as a Markdown link, generated code and its output as fenced
 * blocks. undefined for parts that are not content (function calls, thoughts, plain text handled by the caller).
 */
export function partText(part: Json): string | undefined {
  const inline = part.inlineData ?? part.inline_data;
  if (typeof inline === 'object' && inline !== null && typeof inline.data === 'string') {
    const mime = String(inline.mimeType ?? inline.mime_type ?? 'application/octet-stream');
    return mime.startsWith('image') ? `![image](data:${mime};base64,${inline.data})` : `[media](data:${mime};base64,${inline.data})`;
  }
  const code = part.executableCode ?? part.executable_code;
  if (typeof code === 'object' && code !== null && typeof code.code === 'string')
    return `\`\`\`${String(code.language ?? '').toLowerCase()}\n${code.code}\n\`\`\``;
  const result = part.codeExecutionResult ?? part.code_execution_result;
  if (typeof result === 'object' && result !== null && typeof result.output === 'string') return `\`\`\`output\n${result.output}\n\`\`\``;
  return undefined;
}

/** Appends to content text: a rendered media or code block, and text right after one, start a line of their own. */
export function appendContent(text: string, piece: string, ownLine: boolean): string {
  return ownLine && text && !text.endsWith('\n') && !piece.startsWith('\n') ? `${text}\n${piece}` : text + piece;
}

export function geminiFinishOf(finish: unknown): string {
  if (finish === 'length') return 'MAX_TOKENS';
  if (finish === 'content_filter') return 'SAFETY';
  return 'STOP';
}

export function geminiResponseToHub(native: Json, model: string): { response: HubResponse; usage?: Usage } {
  const candidate = Array.isArray(native.candidates) ? native.candidates[0] : undefined;
  let text = '';
  let reasoning = '';
  const calls: Json[] = [];
  let afterBlock = false;
  for (const part of Array.isArray(candidate?.content?.parts) ? candidate.content.parts : []) {
    if (typeof part !== 'object' || part === null) continue;
    if (typeof part.text === 'string') {
      if (part.thought) reasoning += part.text;
      else {
        text = appendContent(text, part.text, afterBlock);
        afterBlock = false;
      }
    } else if (part.functionCall) {
      const name = String(part.functionCall.name ?? '');
      calls.push({ id: toolCallId(), type: 'function', function: { name, arguments: JSON.stringify(part.functionCall.args ?? {}) } });
    } else {
      const block = partText(part);
      if (block === undefined) continue;
      text = appendContent(text, block, true);
      afterBlock = true;
    }
  }
  const message: Json = { role: 'assistant', content: text };
  if (reasoning) message.reasoning_content = reasoning;
  if (calls.length) message.tool_calls = calls;
  // A refused prompt has no candidate at all. The relay answers converted clients new-api's 400 prompt_blocked
  // before this; what reaches here (a pass-through answer without usage) ends as OpenAI's content_filter.
  const finish = promptBlocked(native) ? 'content_filter' : (finishReasonOf(candidate?.finishReason ?? 'STOP', calls.length > 0) ?? 'stop');
  const response: HubResponse = {
    id: `chatcmpl-${String(native.responseId ?? Date.now())}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: finish }],
  };
  const grounding = new GroundingTally();
  grounding.add(native);
  return { response, usage: grounding.withFacts(geminiUsage(native.usageMetadata)) };
}

export function hubToGeminiResponse(hub: HubResponse, usage: Usage, model: string): Json {
  const choice = Array.isArray(hub.choices) ? hub.choices[0] : undefined;
  const message = choice?.message ?? {};
  const parts: Json[] = [];
  if (typeof message.reasoning_content === 'string' && message.reasoning_content)
    parts.push({ text: message.reasoning_content, thought: true });
  if (typeof message.content === 'string' && message.content) parts.push({ text: message.content });
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    parts.push({ functionCall: { name: String(call?.function?.name ?? ''), args: parseArgs(call?.function?.arguments) } });
  }
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: geminiFinishOf(choice?.finish_reason), index: 0 }],
    usageMetadata: toGeminiUsage(usage),
    modelVersion: model,
    responseId: String(hub.id ?? ''),
  };
}

export function parseArgs(text: unknown): Json {
  if (typeof text !== 'string' || !text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : { value };
  } catch {
    return { raw: text };
  }
}
