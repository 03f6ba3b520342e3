import type { HubRequest, Json, ProviderSettings } from '../types.js';
import { geminiParameters, geminiSchema } from './schema.js';
import { googleExtraBody } from './extra-body.js';
import { thinkingConfigFor } from './thinking.js';

/**
 * Gemini generateContent requests ⇄ OpenAI chat requests. Shapes: Google's Gemini API reference
 * (contents[{role user|model, parts[text | inlineData | fileData | functionCall | functionResponse]}],
 * systemInstruction, generationConfig, tools[{functionDeclarations}], toolConfig.functionCallingConfig,
 * safetySettings[{category, threshold}]).
 */

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The harm categories new-api sets a threshold for on every converted request. HARM_CATEGORY_CIVIC_INTEGRITY
 * is not among them: several models refuse it ("HARM_CATEGORY_CIVIC_INTEGRITY threshold cannot be 5", new-api
 * #701), so it is sent only when gemini.safety_settings names it.
 */
const SAFETY_CATEGORIES = [
  'HARM_CATEGORY_HARASSMENT',
  'HARM_CATEGORY_HATE_SPEECH',
  'HARM_CATEGORY_SEXUALLY_EXPLICIT',
  'HARM_CATEGORY_DANGEROUS_CONTENT',
];
const CIVIC_INTEGRITY = 'HARM_CATEGORY_CIVIC_INTEGRITY';
/** Gemini takes at most 5 stop sequences. */
const MAX_STOP_SEQUENCES = 5;
/**
 * The thought signature Google documents for function calls whose real signature is unknown (a history
 * converted from another format): Gemini 3 refuses a model turn's function call without one (400 "Function
 * call is missing a thought_signature"). new-api attaches the same value (FunctionCallThoughtSignatureEnabled, on
 * by default).
 */
const THOUGHT_SIGNATURE_BYPASS = 'context_engineering_is_the_way_to_go';
/** Function names new-api turns into Gemini's built-in tools instead of function declarations. */
const BUILT_IN_TOOLS = new Set(['googleSearch', 'codeExecution', 'urlContext']);

// ---------------------------------------------------------------- Gemini → hub

export function geminiToHub(body: Json, model: string, stream: boolean): HubRequest {
  const messages: Json[] = [];
  const system = partsText(body.systemInstruction?.parts ?? body.system_instruction?.parts);
  if (system) messages.push({ role: 'system', content: system });
  // Gemini has no call ids: a call and its response are paired by function name, in order.
  const pending = new Map<string, string[]>();
  let callCount = 0;
  for (const content of Array.isArray(body.contents) ? body.contents.filter(isObject) : []) {
    const parts: Json[] = Array.isArray(content.parts) ? content.parts.filter(isObject) : [];
    if (content.role === 'model') {
      const message: Json = { role: 'assistant', content: '' };
      const calls: Json[] = [];
      for (const part of parts) {
        if (typeof part.text === 'string' && !part.thought) message.content += part.text;
        else if (isObject(part.functionCall)) {
          const name = String(part.functionCall.name ?? '');
          const id = `call_${++callCount}_${name}`;
          pending.set(name, [...(pending.get(name) ?? []), id]);
          calls.push({ id, type: 'function', function: { name, arguments: JSON.stringify(part.functionCall.args ?? {}) } });
        }
      }
      if (calls.length) message.tool_calls = calls;
      messages.push(message);
      continue;
    }
    const userParts: Json[] = [];
    for (const part of parts) {
      if (isObject(part.functionResponse)) {
        const name = String(part.functionResponse.name ?? '');
        const id = pending.get(name)?.shift() ?? `call_${name}`;
        messages.push({ role: 'tool', tool_call_id: id, content: JSON.stringify(part.functionResponse.response ?? {}) });
      } else if (typeof part.text === 'string') userParts.push({ type: 'text', text: part.text });
      else if (isObject(part.inlineData))
        userParts.push({
          type: 'image_url',
          image_url: { url: `data:${part.inlineData.mimeType ?? 'image/png'};base64,${part.inlineData.data ?? ''}` },
        });
      else if (isObject(part.fileData) && typeof part.fileData.fileUri === 'string')
        userParts.push({ type: 'image_url', image_url: { url: part.fileData.fileUri } });
    }
    if (userParts.length)
      messages.push({
        role: 'user',
        content: userParts.every((p) => p.type === 'text') ? userParts.map((p) => p.text).join('\n') : userParts,
      });
  }
  const hub: HubRequest = { model, messages, stream };
  if (stream) hub.stream_options = { include_usage: true };
  const config: Json = isObject(body.generationConfig) ? body.generationConfig : {};
  if (typeof config.maxOutputTokens === 'number') hub.max_tokens = config.maxOutputTokens;
  if (typeof config.temperature === 'number') hub.temperature = config.temperature;
  if (typeof config.topP === 'number') hub.top_p = config.topP;
  if (typeof config.topK === 'number') hub.top_k = config.topK;
  if (Array.isArray(config.stopSequences) && config.stopSequences.length) hub.stop = config.stopSequences;
  const budget = Number(config.thinkingConfig?.thinkingBudget);
  if (Number.isFinite(budget) && budget > 0) hub.reasoning_effort = budget >= 24576 ? 'high' : budget >= 8192 ? 'medium' : 'low';
  const declarations = (Array.isArray(body.tools) ? body.tools : []).flatMap((t: Json) =>
    Array.isArray(t?.functionDeclarations) ? t.functionDeclarations : [],
  );
  if (declarations.length) {
    hub.tools = declarations.filter(isObject).map((d: Json) => ({
      type: 'function',
      function: { name: d.name, description: d.description, parameters: d.parameters ?? { type: 'object', properties: {} } },
    }));
  }
  const mode = body.toolConfig?.functionCallingConfig?.mode;
  if (mode === 'ANY') hub.tool_choice = 'required';
  else if (mode === 'NONE') hub.tool_choice = 'none';
  else if (mode === 'AUTO') hub.tool_choice = 'auto';
  return hub;
}

function partsText(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  return parts
    .filter((p) => isObject(p) && typeof p.text === 'string')
    .map((p) => p.text)
    .join('\n');
}

// ---------------------------------------------------------------- hub → Gemini

function hubText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p) => isObject(p) && p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join('\n');
}

function hubParts(content: unknown): Json[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  const parts: Json[] = [];
  for (const part of Array.isArray(content) ? content.filter(isObject) : []) {
    if (part.type === 'text' && typeof part.text === 'string') parts.push({ text: part.text });
    else if (part.type === 'image_url') {
      const url = typeof part.image_url === 'string' ? part.image_url : part.image_url?.url;
      if (typeof url !== 'string') continue;
      const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
      parts.push(data ? { inlineData: { mimeType: data[1], data: data[2] } } : { fileData: { mimeType: mimeOf(url), fileUri: url } });
    }
  }
  return parts;
}

function mimeOf(url: string): string {
  const ext = /\.([a-z0-9]+)(?:\?|$)/i.exec(url)?.[1]?.toLowerCase();
  return ext === 'png' ? 'image/png' : ext === 'webp' ? 'image/webp' : ext === 'gif' ? 'image/gif' : 'image/jpeg';
}

function push(contents: Json[], role: 'user' | 'model', parts: Json[]): void {
  if (!parts.length) return;
  const last = contents[contents.length - 1];
  if (last?.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}

export function hubToGemini(hub: HubRequest, model: string, settings: ProviderSettings): Json {
  const system: string[] = [];
  const contents: Json[] = [];
  const callNames = new Map<string, string>();
  for (const message of Array.isArray(hub.messages) ? hub.messages.filter(isObject) : []) {
    if (message.role === 'system' || message.role === 'developer') {
      const text = hubText(message.content);
      if (text) system.push(text);
    } else if (message.role === 'assistant') {
      const parts = hubParts(message.content);
      // new-api's gemini.function_call_thought_signature_enabled: on unless an operator turns it off.
      let signed = settings.get<boolean>('gemini.function_call_thought_signature_enabled') === false;
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : []) {
        const name = String(call.function?.name ?? '');
        callNames.set(String(call.id ?? ''), name);
        const part: Json = { functionCall: { name, args: parseArgs(call.function?.arguments) } };
        // The first function call of a turn carries the signature (Gemini checks that one).
        if (!signed) part.thoughtSignature = THOUGHT_SIGNATURE_BYPASS;
        signed = true;
        parts.push(part);
      }
      push(contents, 'model', parts);
    } else if (message.role === 'tool') {
      const name = callNames.get(String(message.tool_call_id ?? '')) ?? String(message.name ?? '');
      const text = hubText(message.content);
      push(contents, 'user', [{ functionResponse: { name, response: responseObject(text) } }]);
    } else push(contents, 'user', hubParts(message.content));
  }
  const body: Json = { contents };
  if (system.length) body.systemInstruction = { parts: [{ text: system.join('\n') }] };
  const config: Json = {};
  const maxTokens = hub.max_completion_tokens ?? hub.max_tokens;
  if (typeof maxTokens === 'number' && maxTokens > 0) config.maxOutputTokens = maxTokens;
  if (typeof hub.temperature === 'number') config.temperature = hub.temperature;
  if (typeof hub.top_p === 'number') config.topP = hub.top_p;
  if (typeof hub.top_k === 'number') config.topK = hub.top_k;
  const stop = (typeof hub.stop === 'string' ? [hub.stop] : Array.isArray(hub.stop) ? hub.stop : []).filter(
    (s: unknown) => typeof s === 'string' && s,
  );
  if (stop.length) config.stopSequences = stop.slice(0, MAX_STOP_SEQUENCES);
  if (Number.isInteger(hub.seed) && hub.seed !== 0) config.seed = hub.seed;
  const format = isObject(hub.response_format) ? hub.response_format : undefined;
  if (format?.type === 'json_object' || format?.type === 'json_schema') {
    // JSON mode, and with json_schema the schema Gemini must follow (new-api: responseMimeType + responseSchema).
    config.responseMimeType = 'application/json';
    const schema = isObject(format.json_schema) ? geminiSchema(format.json_schema.schema) : undefined;
    if (schema) config.responseSchema = schema;
  }
  // Only the thinking adapter's model suffixes set a thinkingConfig (new-api): a reasoning_effort alone would send
  // a thinking budget to models that take none (Gemini answers 400). A client's own extra_body.google replaces it.
  const google = googleExtraBody(hub, model);
  const effort = typeof hub.reasoning_effort === 'string' ? hub.reasoning_effort : '';
  const thinking = google.present ? google.thinking : thinkingConfigFor(model, settings, config.maxOutputTokens, effort);
  if (thinking) config.thinkingConfig = thinking;
  if (google.imageConfig) config.imageConfig = google.imageConfig;
  // An image model answers with pictures only when asked to (new-api: gemini.supported_imagine_models).
  if (isImagineModel(model, settings)) config.responseModalities = ['TEXT', 'IMAGE'];
  if (Object.keys(config).length) body.generationConfig = config;
  if (Array.isArray(hub.tools) && hub.tools.length) {
    const tools: Json[] = [];
    const functionDeclarations: Json[] = [];
    for (const tool of hub.tools.filter((t: unknown) => isObject(t) && isObject(t.function))) {
      const name = tool.function.name;
      if (typeof name === 'string' && BUILT_IN_TOOLS.has(name)) {
        if (!tools.some((t) => name in t)) tools.push({ [name]: {} });
        continue;
      }
      // Gemini takes an OpenAPI subset: JSON Schema's $schema, additionalProperties, ... would be a 400.
      const parameters = geminiParameters(tool.function.parameters);
      functionDeclarations.push({ name, description: tool.function.description, ...(parameters ? { parameters } : {}) });
    }
    if (functionDeclarations.length) tools.push({ functionDeclarations });
    if (tools.length) body.tools = tools;
  }
  if (hub.tool_choice === 'required') body.toolConfig = { functionCallingConfig: { mode: 'ANY' } };
  else if (hub.tool_choice === 'none') body.toolConfig = { functionCallingConfig: { mode: 'NONE' } };
  else if (isObject(hub.tool_choice) && hub.tool_choice.function?.name) {
    body.toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [hub.tool_choice.function.name] } };
  }
  body.safetySettings = geminiSafetySettings(settings);
  return body;
}

/**
 * gemini.supported_imagine_models: Gemini models that answer with pictures (gemini-2.5-flash-image, ...). A chat
 * with them asks for text and image output; image generation on them goes to generateContent (images.ts).
 */
export function isImagineModel(model: string, settings: ProviderSettings): boolean {
  const models = settings.get<unknown>('gemini.supported_imagine_models');
  return Array.isArray(models) && models.includes(model);
}

/** gemini.safety_settings: a threshold per category, its `default` key for the rest, else BLOCK_NONE (new-api's default). */
export function geminiSafetySettings(settings: ProviderSettings): Json[] {
  const configured = settings.get<Record<string, string>>('gemini.safety_settings') ?? {};
  const fallback = typeof configured.default === 'string' ? configured.default : 'BLOCK_NONE';
  const categories = typeof configured[CIVIC_INTEGRITY] === 'string' ? [...SAFETY_CATEGORIES, CIVIC_INTEGRITY] : SAFETY_CATEGORIES;
  return categories.map((category) => ({
    category,
    threshold: typeof configured[category] === 'string' ? configured[category] : fallback,
  }));
}

function parseArgs(text: unknown): Json {
  if (typeof text !== 'string' || !text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : { value };
  } catch {
    return { raw: text };
  }
}

function responseObject(text: string): Json {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : { content: value };
  } catch {
    return { content: text };
  }
}
