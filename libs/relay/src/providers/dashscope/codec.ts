import type { Usage } from '../../stream/usage.js';
import { ChunkMaker, embeddingInputs, hubAnswer, maxTokensOf, openAiEmbeddings, tokens, usageOf } from '../native/kit.js';
import { parseJsonObject } from '../sse-events.js';
import type { EmbeddingAdaptor, HubChunk, Json, ProviderCodec, SseEvent, StreamDecoder } from '../types.js';

/**
 * Alibaba DashScope native text generation (DashScope API reference, "text-generation/generation"):
 * request `{model, input:{messages}, parameters:{result_format:"message", incremental_output, max_tokens,
 * temperature, top_p, top_k, seed, stop, enable_search, tools}}`; answer `{output:{choices:[{message:{role,
 * content, reasoning_content}, finish_reason}]}, usage:{input_tokens, output_tokens, total_tokens,
 * prompt_tokens_details:{cached_tokens}}, request_id}` (the older `output.text` form is read too); errors
 * `{code, message, request_id}`. Streams (`X-DashScope-SSE: enable`) send the same object per event, only the
 * new text when incremental_output is on, usage cumulative.
 */

const PASSED_PARAMETERS = ['temperature', 'top_p', 'top_k', 'seed', 'stop', 'enable_search', 'repetition_penalty', 'presence_penalty'];

function requestFromHub(hub: Json, model: string): Json {
  const messages = (Array.isArray(hub.messages) ? hub.messages : []).map((m: Json) => {
    const out: Json = { role: m?.role === 'developer' ? 'system' : String(m?.role ?? 'user'), content: m?.content ?? '' };
    if (m?.tool_calls) out.tool_calls = m.tool_calls;
    if (m?.tool_call_id) out.tool_call_id = m.tool_call_id;
    if (m?.name) out.name = m.name;
    return out;
  });
  const parameters: Json = { result_format: 'message' };
  for (const name of PASSED_PARAMETERS) if (hub[name] !== undefined) parameters[name] = hub[name];
  const maxTokens = maxTokensOf(hub);
  if (maxTokens) parameters.max_tokens = maxTokens;
  if (Array.isArray(hub.tools) && hub.tools.length) parameters.tools = hub.tools;
  if (hub.stream === true) parameters.incremental_output = true;
  return { model, input: { messages }, parameters };
}

export function dashScopeUsage(raw: Json | undefined): Usage | undefined {
  const usage = usageOf(raw?.input_tokens, raw?.output_tokens);
  if (usage) usage.cachedTokens = Math.min(tokens(raw?.prompt_tokens_details?.cached_tokens), usage.promptTokens);
  return usage;
}

const finishOf = (reason: unknown): string | null =>
  reason === 'length' ? 'length' : reason === 'tool_calls' ? 'tool_calls' : reason && reason !== 'null' ? 'stop' : null;

function responseToHub(native: Json, model: string): { response: Json; usage?: Usage } {
  const output = native.output ?? {};
  const choice = Array.isArray(output.choices) ? output.choices[0] : undefined;
  const message = choice?.message ?? {};
  const text = typeof message.content === 'string' ? message.content : typeof output.text === 'string' ? output.text : '';
  const usage = dashScopeUsage(native.usage);
  const response = hubAnswer(
    String(native.request_id ?? ''),
    model,
    text,
    finishOf(choice?.finish_reason ?? output.finish_reason) ?? 'stop',
    usage,
    typeof message.reasoning_content === 'string' ? message.reasoning_content : undefined,
  );
  if (Array.isArray(message.tool_calls) && message.tool_calls.length) response.choices[0].message.tool_calls = message.tool_calls;
  return { response, usage };
}

class DashScopeStreamDecoder implements StreamDecoder {
  private last?: Usage;
  private chunks?: ChunkMaker;

  constructor(private readonly model: string) {}

  decode(event: SseEvent): HubChunk[] {
    const data = parseJsonObject(event.data);
    if (!data) return [];
    if (event.event === 'error' || (data.code && !data.output)) throw new Error(String(data.message ?? data.code));
    this.chunks ??= new ChunkMaker(this.model, String(data.request_id ?? ''));
    const usage = dashScopeUsage(data.usage);
    if (usage) this.last = usage;
    const output = data.output ?? {};
    const choice = Array.isArray(output.choices) ? output.choices[0] : undefined;
    const message = choice?.message ?? {};
    const out: HubChunk[] = [];
    if (typeof message.reasoning_content === 'string' && message.reasoning_content)
      out.push(this.chunks.reasoning(message.reasoning_content));
    const text = typeof message.content === 'string' ? message.content : typeof output.text === 'string' ? output.text : '';
    if (text) out.push(this.chunks.text(text));
    const finish = finishOf(choice?.finish_reason ?? output.finish_reason);
    if (finish) out.push(this.chunks.finish(finish));
    return out;
  }

  usage(): Usage | undefined {
    return this.last;
  }
}

export const dashScopeCodec: ProviderCodec = {
  requestFromHub,
  responseToHub,
  streamDecoder: (model) => new DashScopeStreamDecoder(model),
  isErrorBody: (native) => native.output === undefined && native.code !== undefined,
  errorMessage: (native) => (typeof native.message === 'string' ? `${native.message} (${native.code})` : undefined),
};

/**
 * Embeddings (DashScope "text-embedding"): `{model, input:{texts}, parameters:{}}` →
 * `{output:{embeddings:[{text_index, embedding}]}, usage:{total_tokens}}`.
 */
export const dashScopeEmbeddingShape: Omit<EmbeddingAdaptor, 'buildRequest'> = {
  requestFromOpenAi: (body, model) => {
    const parameters: Json = {};
    if (typeof body.dimensions === 'number') parameters.dimension = body.dimensions;
    return { model, input: { texts: embeddingInputs(body) }, parameters };
  },
  responseToOpenAi(native, model) {
    const items = Array.isArray(native.output?.embeddings) ? [...native.output.embeddings] : [];
    items.sort((a, b) => Number(a?.text_index) - Number(b?.text_index));
    const usage = usageOf(native.usage?.input_tokens ?? native.usage?.total_tokens, 0);
    return {
      response: openAiEmbeddings(
        model,
        items.map((item: Json) => (Array.isArray(item?.embedding) ? item.embedding : [])),
      ),
      usage,
    };
  },
};
