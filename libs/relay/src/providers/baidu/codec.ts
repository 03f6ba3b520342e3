import type { Usage } from '../../stream/usage.js';
import { ChunkMaker, embeddingInputs, hubAnswer, maxTokensOf, openAiEmbeddings, plainMessages, tokens, usageOf } from '../native/kit.js';
import { parseJsonObject } from '../sse-events.js';
import type { EmbeddingAdaptor, HubChunk, Json, ProviderCodec, SseEvent, StreamDecoder } from '../types.js';

/**
 * Baidu ERNIE v1 (wenxinworkshop) wire format, per Baidu's ERNIE API reference as new-api reads it:
 * request `{messages:[{role,content}], system, temperature, top_p, penalty_score, max_output_tokens, stream,
 * user_id}`; answer `{id, created, result, is_truncated, usage:{prompt_tokens, completion_tokens,
 * total_tokens}}`; stream events of the same shape with `sentence_id` and `is_end`; errors
 * `{error_code, error_msg}` with status 200.
 */

function requestFromHub(hub: Json): Json {
  const body: Json = { messages: [] };
  for (const message of plainMessages(hub)) {
    if (message.role === 'system' || message.role === 'developer') body.system = message.content;
    else body.messages.push({ role: message.role === 'assistant' ? 'assistant' : 'user', content: message.content });
  }
  if (typeof hub.temperature === 'number') body.temperature = hub.temperature;
  if (typeof hub.top_p === 'number') body.top_p = hub.top_p;
  if (typeof hub.frequency_penalty === 'number' && hub.frequency_penalty > 0) body.penalty_score = hub.frequency_penalty;
  const maxTokens = maxTokensOf(hub);
  // ERNIE's minimum is 2 output tokens.
  if (maxTokens) body.max_output_tokens = Math.max(2, maxTokens);
  if (hub.stream === true) body.stream = true;
  if (typeof hub.user === 'string' && hub.user) body.user_id = hub.user;
  return body;
}

/** Baidu's total includes the prompt; the completion is what is left (new-api counts it the same way). */
function baiduUsage(raw: Json | undefined): Usage | undefined {
  if (!raw) return undefined;
  const prompt = tokens(raw.prompt_tokens);
  const completion = raw.completion_tokens !== undefined ? tokens(raw.completion_tokens) : Math.max(0, tokens(raw.total_tokens) - prompt);
  return usageOf(prompt, completion);
}

function responseToHub(native: Json, model: string): { response: Json; usage?: Usage } {
  const usage = baiduUsage(native.usage);
  const finish = native.is_truncated ? 'length' : 'stop';
  return { response: hubAnswer(String(native.id ?? ''), model, String(native.result ?? ''), finish, usage), usage };
}

class BaiduStreamDecoder implements StreamDecoder {
  private last?: Usage;
  private chunks?: ChunkMaker;

  constructor(private readonly model: string) {}

  decode(event: SseEvent): HubChunk[] {
    const data = parseJsonObject(event.data);
    if (!data) return [];
    if (data.error_code) throw new Error(String(data.error_msg ?? `Baidu error ${data.error_code}`));
    this.chunks ??= new ChunkMaker(this.model, String(data.id ?? ''));
    const usage = baiduUsage(data.usage);
    if (usage) this.last = usage;
    const out: HubChunk[] = [];
    if (typeof data.result === 'string' && data.result) out.push(this.chunks.text(data.result));
    if (data.is_end) out.push(this.chunks.finish(data.is_truncated ? 'length' : 'stop'));
    return out;
  }

  usage(): Usage | undefined {
    return this.last;
  }
}

export const baiduCodec: ProviderCodec = {
  requestFromHub,
  responseToHub,
  streamDecoder: (model) => new BaiduStreamDecoder(model),
  isErrorBody: (native) => Boolean(native.error_code) || typeof native.error_msg === 'string',
  errorMessage: (native) => (typeof native.error_msg === 'string' ? `${native.error_msg} (error_code ${native.error_code})` : undefined),
};

/** Embeddings: `{input:[texts]}` → `{data:[{object, embedding, index}], usage:{prompt_tokens, total_tokens}}`. */
export const baiduEmbeddingShape: Omit<EmbeddingAdaptor, 'buildRequest'> = {
  requestFromOpenAi: (body) => ({ input: embeddingInputs(body) }),
  responseToOpenAi(native, model) {
    const items = Array.isArray(native.data) ? [...native.data].sort((a, b) => Number(a?.index) - Number(b?.index)) : [];
    const usage = usageOf(native.usage?.prompt_tokens ?? native.usage?.total_tokens, 0);
    return {
      response: openAiEmbeddings(
        model,
        items.map((item: Json) => (Array.isArray(item?.embedding) ? item.embedding : [])),
      ),
      usage,
    };
  },
};
