import type { Usage } from '../../stream/usage.js';
import { ChunkMaker, hubAnswer, maxTokensOf, plainMessages, usageOf } from '../native/kit.js';
import { parseJsonObject } from '../sse-events.js';
import type { HubChunk, Json, ProviderCodec, SseEvent, StreamDecoder } from '../types.js';

/**
 * iFlytek Spark WebSocket chat (Spark WebSocket API reference): one request frame `{header:{app_id, uid},
 * parameter:{chat:{domain, temperature, top_k, max_tokens}}, payload:{message:{text:[{role, content}]}}}`;
 * answer frames `{header:{code, message, sid, status}, payload:{choices:{status, seq, text:[{role, content}]},
 * usage:{text:{prompt_tokens, completion_tokens, total_tokens}}}}`, the last with status 2 and the usage; a
 * non-zero header.code is an error. The transport hands frames over as events (stream) or joins them into
 * one frame (non-stream); app_id and domain are set by the adaptor, which knows the channel.
 */

function requestFromHub(hub: Json): Json {
  const chat: Json = {};
  if (typeof hub.temperature === 'number') chat.temperature = hub.temperature;
  if (typeof hub.top_k === 'number') chat.top_k = hub.top_k;
  const maxTokens = maxTokensOf(hub);
  if (maxTokens) chat.max_tokens = maxTokens;
  const header: Json = {};
  if (typeof hub.user === 'string' && hub.user) header.uid = hub.user.slice(0, 32);
  const text = plainMessages(hub).map((m) => ({ role: m.role === 'developer' ? 'system' : m.role, content: m.content }));
  return { header, parameter: { chat }, payload: { message: { text } } };
}

const frameText = (frame: Json): string =>
  (Array.isArray(frame.payload?.choices?.text) ? frame.payload.choices.text : []).map((t: Json) => String(t?.content ?? '')).join('');
const frameUsage = (frame: Json): Usage | undefined =>
  usageOf(frame.payload?.usage?.text?.prompt_tokens, frame.payload?.usage?.text?.completion_tokens);

function responseToHub(native: Json, model: string): { response: Json; usage?: Usage } {
  const usage = frameUsage(native);
  return { response: hubAnswer(String(native.header?.sid ?? ''), model, frameText(native), 'stop', usage), usage };
}

class SparkStreamDecoder implements StreamDecoder {
  private last?: Usage;
  private chunks?: ChunkMaker;

  constructor(private readonly model: string) {}

  decode(event: SseEvent): HubChunk[] {
    const frame = parseJsonObject(event.data);
    if (!frame) return [];
    if (Number(frame.header?.code ?? 0) !== 0)
      throw new Error(`${String(frame.header?.message ?? 'Spark error')} (code ${frame.header?.code})`);
    this.chunks ??= new ChunkMaker(this.model, String(frame.header?.sid ?? ''));
    const usage = frameUsage(frame);
    if (usage) this.last = usage;
    const out: HubChunk[] = [];
    const text = frameText(frame);
    if (text) out.push(this.chunks.text(text));
    if (Number(frame.header?.status) === 2) out.push(this.chunks.finish('stop'));
    return out;
  }

  usage(): Usage | undefined {
    return this.last;
  }
}

export const sparkCodec: ProviderCodec = {
  requestFromHub,
  responseToHub,
  streamDecoder: (model) => new SparkStreamDecoder(model),
  isErrorBody: (native) => Number(native.header?.code ?? 0) !== 0,
  errorMessage: (native) => (native.header ? `${String(native.header.message ?? '')} (code ${native.header.code})` : undefined),
};

/** Joins a non-stream answer's frames into one: the texts in order, the last header and usage. */
export function joinFrames(frames: Json[]): Json {
  const last = frames.at(-1) ?? {};
  const text = frames.map(frameText).join('');
  return {
    header: { ...(last.header ?? {}), code: 0 },
    payload: { choices: { status: 2, text: [{ role: 'assistant', content: text, index: 0 }] }, usage: last.payload?.usage },
  };
}
