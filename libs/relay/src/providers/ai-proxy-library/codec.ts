import type { Usage } from '../../stream/usage.js';
import { ChunkMaker, hubAnswer, plainMessages } from '../native/kit.js';
import { parseJsonObject } from '../sse-events.js';
import type { HubChunk, Json, ProviderCodec, SseEvent, StreamDecoder } from '../types.js';

/**
 * AI Proxy knowledge base ("library ask" API, as one-api's aiproxy adaptor speaks it): request `{model,
 * query, libraryId, stream}` with the last user message as the query; answer `{success, answer,
 * documents:[{title, url}], errCode, msg}`; stream events `{content, finish, model, documents}`. The
 * documents are appended to the answer as a reference list. No usage is reported: the relay counts.
 */

function requestFromHub(hub: Json, model: string): Json {
  const messages = plainMessages(hub);
  const query = [...messages].reverse().find((m) => m.role === 'user')?.content ?? messages.at(-1)?.content ?? '';
  return { model, query, libraryId: String(hub.libraryId ?? ''), stream: hub.stream === true };
}

function references(documents: unknown): string {
  const list = (Array.isArray(documents) ? documents : []).filter((d: Json) => d && typeof d.title === 'string');
  if (!list.length) return '';
  return `\n\n参考文档：\n${list.map((d: Json, i: number) => `${i + 1}. [${d.title}](${String(d.url ?? '')})`).join('\n')}\n`;
}

function responseToHub(native: Json, model: string): { response: Json; usage?: Usage } {
  return { response: hubAnswer('', model, String(native.answer ?? '') + references(native.documents), 'stop') };
}

class LibraryStreamDecoder implements StreamDecoder {
  private readonly chunks: ChunkMaker;

  constructor(model: string) {
    this.chunks = new ChunkMaker(model);
  }

  decode(event: SseEvent): HubChunk[] {
    const data = parseJsonObject(event.data);
    if (!data) return [];
    if (data.success === false || data.errCode) throw new Error(String(data.msg ?? data.errMsg ?? `AI Proxy error ${data.errCode}`));
    const text = String(data.content ?? '') + (data.finish ? references(data.documents) : '');
    const out: HubChunk[] = text ? [this.chunks.text(text)] : [];
    if (data.finish) out.push(this.chunks.finish('stop'));
    return out;
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const aiProxyLibraryCodec: ProviderCodec = {
  requestFromHub,
  responseToHub,
  streamDecoder: (model) => new LibraryStreamDecoder(model),
  isErrorBody: (native) => native.success === false || Boolean(native.errCode),
  errorMessage: (native) => {
    const message = native.msg ?? native.errMsg;
    return typeof message === 'string' && message ? `${message} (errCode ${native.errCode})` : undefined;
  },
};
