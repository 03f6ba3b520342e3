import type { Usage } from '../../stream/usage.js';
import { ChunkMaker, hubAnswer, plainMessages, usageOf } from '../native/kit.js';
import { parseJsonObject } from '../sse-events.js';
import type { HubChunk, Json, ProviderCodec, SseEvent, StreamDecoder } from '../types.js';

/**
 * Zhipu v3 model-api wire format (open.bigmodel.cn v3 reference, as new-api's zhipu adaptor reads it):
 * request `{prompt:[{role,content}], temperature, top_p, incremental}`; answer
 * `{code, msg, success, data:{task_id, request_id, choices:[{role, content}], usage}}` whose content comes
 * quoted; the stream sends `event:add` text in `data:` lines and ends with `event:finish` carrying
 * `meta:{usage,...}`; `event:error` / `event:interrupted` end it with a failure.
 */

function requestFromHub(hub: Json): Json {
  const prompt: { role: string; content: string }[] = [];
  for (const message of plainMessages(hub)) {
    // v3 has no system role: the instruction becomes a user turn the model acknowledges.
    if (message.role === 'system' || message.role === 'developer') {
      prompt.push({ role: 'user', content: message.content }, { role: 'assistant', content: 'Okay' });
    } else prompt.push({ role: message.role === 'assistant' ? 'assistant' : 'user', content: message.content });
  }
  const body: Json = { prompt };
  if (typeof hub.temperature === 'number') body.temperature = hub.temperature;
  // v3 refuses top_p >= 1; new-api sends 0.99 instead.
  if (typeof hub.top_p === 'number') body.top_p = hub.top_p >= 1 ? 0.99 : hub.top_p;
  if (hub.stream === true) body.incremental = true;
  return body;
}

const unquote = (text: string) => text.replace(/^"+|"+$/g, '');

function responseToHub(native: Json, model: string): { response: Json; usage?: Usage } {
  const data = native.data ?? {};
  const choices = Array.isArray(data.choices) ? data.choices : [];
  const text = choices.map((choice: Json) => unquote(String(choice?.content ?? ''))).join('');
  const usage = usageOf(data.usage?.prompt_tokens, data.usage?.completion_tokens);
  return { response: hubAnswer(String(data.task_id ?? ''), model, text, 'stop', usage), usage };
}

class ZhipuV3StreamDecoder implements StreamDecoder {
  private last?: Usage;
  private readonly chunks: ChunkMaker;

  constructor(model: string) {
    this.chunks = new ChunkMaker(model);
  }

  decode(event: SseEvent): HubChunk[] {
    if (event.event === 'error' || event.event === 'interrupted') throw new Error(event.data || `Zhipu stream ${event.event}`);
    const out: HubChunk[] = [];
    if (event.event !== 'finish' && event.data) out.push(this.chunks.text(event.data));
    if (event.meta) {
      const meta = parseJsonObject(event.meta);
      const usage = usageOf(meta?.usage?.prompt_tokens, meta?.usage?.completion_tokens);
      if (usage) this.last = usage;
    }
    if (event.event === 'finish') out.push(this.chunks.finish('stop'));
    return out;
  }

  usage(): Usage | undefined {
    return this.last;
  }
}

export const zhipuV3Codec: ProviderCodec = {
  requestFromHub: requestFromHub,
  responseToHub,
  streamDecoder: (model) => new ZhipuV3StreamDecoder(model),
  isErrorBody: (native) => native.success === false || (native.data === undefined && native.code !== undefined && native.code !== 200),
  errorMessage: (native) => (typeof native.msg === 'string' && native.msg ? `${native.msg} (code ${native.code})` : undefined),
};
