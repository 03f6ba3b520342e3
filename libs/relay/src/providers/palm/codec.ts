import type { Usage } from '../../stream/usage.js';
import { ChunkMaker, hubAnswer, plainMessages } from '../native/kit.js';
import { parseJsonObject } from '../sse-events.js';
import type { HubChunk, Json, ProviderCodec, SseEvent, StreamDecoder } from '../types.js';

/**
 * Google PaLM 2 `generateMessage` (PaLM API v1beta2 reference): request `{prompt:{context, messages:[{author,
 * content}]}, temperature, candidateCount, topP, topK}` with authors "0" (user) and "1" (model), as new-api
 * sends them; answer `{candidates:[{author, content}], messages, filters}`, errors `{error:{code, message,
 * status}}`. PaLM reports no usage: the relay counts the tokens itself.
 */

function requestFromHub(hub: Json): Json {
  const context: string[] = [];
  const messages: Json[] = [];
  for (const message of plainMessages(hub)) {
    if (message.role === 'system' || message.role === 'developer') context.push(message.content);
    else messages.push({ author: message.role === 'assistant' ? '1' : '0', content: message.content });
  }
  const prompt: Json = { messages };
  if (context.length) prompt.context = context.join('\n');
  const body: Json = { prompt };
  if (typeof hub.temperature === 'number') body.temperature = hub.temperature;
  if (typeof hub.top_p === 'number') body.topP = hub.top_p;
  if (typeof hub.top_k === 'number') body.topK = hub.top_k;
  if (typeof hub.n === 'number' && hub.n > 1) body.candidateCount = Math.min(8, Math.floor(hub.n));
  return body;
}

function answerText(native: Json): string {
  const candidate = Array.isArray(native.candidates) ? native.candidates[0] : undefined;
  return typeof candidate?.content === 'string' ? candidate.content : '';
}

function responseToHub(native: Json, model: string): { response: Json; usage?: Usage } {
  const blocked = !Array.isArray(native.candidates) || native.candidates.length === 0;
  return { response: hubAnswer('', model, answerText(native), blocked && native.filters ? 'content_filter' : 'stop') };
}

/** The whole answer arrives as one event (PaLM does not stream): its text, then the end. */
class PalmStreamDecoder implements StreamDecoder {
  private readonly chunks: ChunkMaker;

  constructor(model: string) {
    this.chunks = new ChunkMaker(model);
  }

  decode(event: SseEvent): HubChunk[] {
    const data = parseJsonObject(event.data);
    if (!data) return [];
    if (data.error) throw new Error(String(data.error.message ?? 'PaLM error'));
    const text = answerText(data);
    return text ? [this.chunks.text(text), this.chunks.finish('stop')] : [this.chunks.finish('stop')];
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const palmCodec: ProviderCodec = {
  requestFromHub,
  responseToHub,
  streamDecoder: (model) => new PalmStreamDecoder(model),
  isErrorBody: (native) => native.error !== undefined && native.candidates === undefined,
};
