import type { Usage } from '../../stream/usage.js';
import type { HubResponse, Json } from '../types.js';

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

/** Gemini's usageMetadata in the relay's terms: thoughts are output; the prompt count already includes the cache. */
export function geminiUsage(raw: unknown): Usage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const u = raw as Json;
  const promptTokens = count(u.promptTokenCount);
  const completionTokens = count(u.candidatesTokenCount) + count(u.thoughtsTokenCount);
  if (promptTokens === 0 && completionTokens === 0) return undefined;
  return { promptTokens, completionTokens, cachedTokens: Math.min(count(u.cachedContentTokenCount), promptTokens) };
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

const BLOCKED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY']);

export function finishReasonOf(reason: unknown, calledTools: boolean): string | null {
  if (reason === undefined || reason === null || reason === '' || reason === 'FINISH_REASON_UNSPECIFIED') return null;
  if (reason === 'MAX_TOKENS') return 'length';
  if (BLOCKED.has(String(reason))) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
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
  for (const part of Array.isArray(candidate?.content?.parts) ? candidate.content.parts : []) {
    if (typeof part?.text === 'string') {
      if (part.thought) reasoning += part.text;
      else text += part.text;
    } else if (part?.functionCall) {
      const name = String(part.functionCall.name ?? '');
      calls.push({
        id: `call_${calls.length + 1}_${name}`,
        type: 'function',
        function: { name, arguments: JSON.stringify(part.functionCall.args ?? {}) },
      });
    }
  }
  const message: Json = { role: 'assistant', content: text };
  if (reasoning) message.reasoning_content = reasoning;
  if (calls.length) message.tool_calls = calls;
  const response: HubResponse = {
    id: `chatcmpl-${String(native.responseId ?? Date.now())}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: finishReasonOf(candidate?.finishReason ?? 'STOP', calls.length > 0) ?? 'stop' }],
  };
  return { response, usage: geminiUsage(native.usageMetadata) };
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
