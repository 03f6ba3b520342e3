import type { Usage } from '../../stream/usage.js';
import { ChunkMaker, embeddingInputs, hubAnswer, maxTokensOf, textOf, usageOf } from '../native/kit.js';
import { parseJsonObject } from '../sse-events.js';
import type { EmbeddingAdaptor, HubChunk, Json, ProviderCodec, SseEvent, StreamDecoder } from '../types.js';

/**
 * Ollama's native API (ollama docs/api.md): `/api/chat` takes `{model, messages:[{role, content, images,
 * tool_calls}], stream, options:{temperature, top_p, top_k, seed, num_predict, stop, ...}, tools, format,
 * think}` and answers `{message:{role, content, thinking, tool_calls}, done, done_reason, prompt_eval_count,
 * eval_count}`; streams are one such object per line (the adaptor reads them as events), the last with
 * `done: true` and the counts. Errors are `{error: "..."}`.
 */

const OPTION_NAMES: Record<string, string> = {
  temperature: 'temperature',
  top_p: 'top_p',
  top_k: 'top_k',
  seed: 'seed',
  stop: 'stop',
  frequency_penalty: 'frequency_penalty',
  presence_penalty: 'presence_penalty',
};

function ollamaMessage(m: Json): Json {
  const out: Json = { role: m?.role === 'developer' ? 'system' : String(m?.role ?? 'user'), content: textOf(m?.content) };
  // Images go beside the text as base64 (data URLs only: Ollama does not fetch remote images).
  const images = (Array.isArray(m?.content) ? m.content : [])
    .map((part: Json) => (part?.type === 'image_url' ? String(part.image_url?.url ?? part.image_url ?? '') : ''))
    .filter((url: string) => url.startsWith('data:'))
    .map((url: string) => url.slice(url.indexOf(',') + 1));
  if (images.length) out.images = images;
  if (Array.isArray(m?.tool_calls) && m.tool_calls.length)
    out.tool_calls = m.tool_calls.map((call: Json) => ({
      function: { name: call?.function?.name, arguments: parseJsonObject(String(call?.function?.arguments ?? '{}')) ?? {} },
    }));
  if (m?.role === 'tool' && m.name) out.tool_name = m.name;
  return out;
}

function requestFromHub(hub: Json, model: string): Json {
  const options: Json = {};
  for (const [from, to] of Object.entries(OPTION_NAMES)) if (hub[from] !== undefined) options[to] = hub[from];
  const maxTokens = maxTokensOf(hub);
  if (maxTokens) options.num_predict = maxTokens;
  const body: Json = { model, messages: (Array.isArray(hub.messages) ? hub.messages : []).map(ollamaMessage), stream: hub.stream === true };
  if (Object.keys(options).length) body.options = options;
  if (Array.isArray(hub.tools) && hub.tools.length) body.tools = hub.tools;
  if (hub.response_format?.type === 'json_object') body.format = 'json';
  else if (hub.response_format?.type === 'json_schema' && hub.response_format.json_schema?.schema)
    body.format = hub.response_format.json_schema.schema;
  if (hub.reasoning_effort !== undefined) body.think = hub.reasoning_effort !== 'none';
  return body;
}

const finishOf = (reason: unknown, tools: boolean): string => (reason === 'length' ? 'length' : tools ? 'tool_calls' : 'stop');

function toolCalls(calls: unknown, offset = 0): Json[] {
  return (Array.isArray(calls) ? calls : []).map((call: Json, i: number) => ({
    index: offset + i,
    id: `call_${offset + i + 1}`,
    type: 'function',
    function: { name: String(call?.function?.name ?? ''), arguments: JSON.stringify(call?.function?.arguments ?? {}) },
  }));
}

function responseToHub(native: Json, model: string): { response: Json; usage?: Usage } {
  const message = native.message ?? {};
  const usage = usageOf(native.prompt_eval_count, native.eval_count);
  const calls = toolCalls(message.tool_calls);
  const thinking = typeof message.thinking === 'string' ? message.thinking : undefined;
  const response = hubAnswer('', model, String(message.content ?? ''), finishOf(native.done_reason, calls.length > 0), usage, thinking);
  if (calls.length) response.choices[0].message.tool_calls = calls.map(({ index: _index, ...call }) => call);
  return { response, usage };
}

class OllamaStreamDecoder implements StreamDecoder {
  private last?: Usage;
  private tools = 0;
  private readonly chunks: ChunkMaker;

  constructor(model: string) {
    this.chunks = new ChunkMaker(model);
  }

  decode(event: SseEvent): HubChunk[] {
    const data = parseJsonObject(event.data);
    if (!data) return [];
    if (typeof data.error === 'string') throw new Error(data.error);
    const out: HubChunk[] = [];
    const message = data.message ?? {};
    if (typeof message.thinking === 'string' && message.thinking) out.push(this.chunks.reasoning(message.thinking));
    if (typeof message.content === 'string' && message.content) out.push(this.chunks.text(message.content));
    const calls = toolCalls(message.tool_calls, this.tools);
    if (calls.length) {
      this.tools += calls.length;
      const chunk = this.chunks.text('');
      chunk.choices[0].delta = { tool_calls: calls };
      out.push(chunk);
    }
    if (data.done) {
      const usage = usageOf(data.prompt_eval_count, data.eval_count);
      if (usage) this.last = usage;
      out.push(this.chunks.finish(finishOf(data.done_reason, this.tools > 0)));
    }
    return out;
  }

  usage(): Usage | undefined {
    return this.last;
  }
}

export const ollamaCodec: ProviderCodec = {
  requestFromHub,
  responseToHub,
  streamDecoder: (model) => new OllamaStreamDecoder(model),
  isErrorBody: (native) => typeof native.error === 'string' && native.message === undefined,
  errorMessage: (native) => (typeof native.error === 'string' ? native.error : undefined),
};

/** `/api/embed`: `{model, input:[texts]}` → `{embeddings:[[...]], prompt_eval_count}`. */
export const ollamaEmbeddingShape: Omit<EmbeddingAdaptor, 'buildRequest'> = {
  requestFromOpenAi: (body, model) => ({ model, input: embeddingInputs(body) }),
  responseToOpenAi(native, model) {
    const vectors = Array.isArray(native.embeddings) ? native.embeddings.map((v: unknown) => (Array.isArray(v) ? v : [])) : [];
    return {
      response: {
        object: 'list',
        data: vectors.map((embedding: unknown[], index: number) => ({ object: 'embedding', index, embedding })),
        model,
      },
      usage: usageOf(native.prompt_eval_count, 0),
    };
  },
};
