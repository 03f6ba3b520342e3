import { providerOnly } from '../provider-only.js';
import { parseJsonObject } from '../sse-events.js';
import type { FormatCodec, HubChunk, HubRequest, Json, SseEvent, StreamDecoder } from '../types.js';
import type { Usage } from '../../stream/usage.js';
import { cohereUsage } from './codec.js';
import { hubChunk } from '../hub-chunk.js';

const ROLES = new Set(['system', 'user', 'assistant']);

function text(content: unknown): string | Json[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((p: Json) => p?.type === 'text' && typeof p.text === 'string').map((p: Json) => ({ type: 'text', text: p.text }));
}

/**
 * OpenAI chat → Cohere chat v2 (`/v2/chat`): messages keep OpenAI's roles (developer becomes system) and text
 * content; sampling fields by Cohere's names (p, stop_sequences).
 */
function hubToCohereV2(request: HubRequest, model: string): Record<string, unknown> {
  const messages = (Array.isArray(request.messages) ? request.messages : [])
    .map((m: Json) => ({ role: m?.role === 'developer' ? 'system' : m?.role, content: text(m?.content) }))
    .filter((m: Json) => ROLES.has(m.role));
  const body: Record<string, unknown> = { model, messages, stream: request.stream === true };
  const maxTokens = Number(request.max_completion_tokens ?? request.max_tokens);
  if (maxTokens > 0) body.max_tokens = maxTokens;
  if (typeof request.temperature === 'number') body.temperature = request.temperature;
  if (typeof request.top_p === 'number') body.p = request.top_p;
  if (typeof request.seed === 'number') body.seed = request.seed;
  const stop = typeof request.stop === 'string' ? [request.stop] : Array.isArray(request.stop) ? request.stop : undefined;
  if (stop?.length) body.stop_sequences = stop;
  return body;
}

function finishReason(reason: unknown): string {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason === 'TOOL_CALL') return 'tool_calls';
  return 'stop';
}

function answerText(message: Json | undefined): string {
  return (Array.isArray(message?.content) ? message.content : [])
    .map((part: Json) => (part?.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

/** Cohere v2 stream: SSE with content-delta text and the usage in message-end. */
class CohereV2StreamDecoder implements StreamDecoder {
  private last?: Usage;
  private id = '';
  private readonly created = Math.floor(Date.now() / 1000);

  constructor(private readonly model: string) {}

  decode(event: SseEvent): HubChunk[] {
    const data = parseJsonObject(event.data);
    if (!data) return [];
    if (data.type === 'message-start') this.id = String(data.id ?? '');
    const chunk = (delta: Json, finish: string | null = null): HubChunk => hubChunk(this.id, this.created, this.model, delta, finish);
    const piece = data.delta?.message?.content?.text;
    if (data.type === 'content-delta' && typeof piece === 'string' && piece) return [chunk({ content: piece })];
    if (data.type === 'message-end') {
      this.last = cohereUsage(data.delta?.usage) ?? this.last;
      if (data.delta?.error) throw new Error(String(data.delta.error));
      return [chunk({}, finishReason(data.delta?.finish_reason))];
    }
    return [];
  }

  usage(): Usage | undefined {
    return this.last;
  }
}

export const cohereV2Codec: FormatCodec = {
  id: 'cohere_v2',
  ...providerOnly('Cohere v2'),
  requestFromHub: hubToCohereV2,
  responseToHub: (native, model) => ({
    response: {
      id: String(native.id ?? ''),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: answerText(native.message) },
          finish_reason: finishReason(native.finish_reason),
        },
      ],
    },
    usage: cohereUsage(native.usage),
  }),
  streamDecoder: (model) => new CohereV2StreamDecoder(model),
  // Cohere's errors: {"message": "..."}; an answer's message is an object.
  isErrorBody: (native) => typeof native.message === 'string',
};
