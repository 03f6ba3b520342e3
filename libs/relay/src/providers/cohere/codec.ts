import type { Usage } from '../../stream/usage.js';
import { contentText, providerOnly } from '../provider-only.js';
import { parseJsonObject } from '../sse-events.js';
import type { FormatCodec, HubChunk, HubRequest, Json, SseEvent, StreamDecoder } from '../types.js';
import { hubChunk } from '../hub-chunk.js';

/** new-api's default when the client sets no limit (Cohere's own default is model-dependent). */
const DEFAULT_MAX_TOKENS = 4000;
const ROLES: Record<string, string> = { assistant: 'CHATBOT', system: 'SYSTEM', developer: 'SYSTEM' };

/**
 * OpenAI chat → Cohere chat v1 (`/v1/chat`): the last user message is `message`, everything before it is
 * `chat_history` with Cohere's roles (USER, CHATBOT, SYSTEM), as new-api converts it; sampling fields by their
 * Cohere names.
 */
function hubToCohere(request: HubRequest, model: string): Record<string, unknown> {
  const messages: Json[] = Array.isArray(request.messages) ? request.messages : [];
  let last = -1;
  messages.forEach((m, i) => {
    if (m?.role === 'user') last = i;
  });
  const body: Record<string, unknown> = {
    model,
    message: last >= 0 ? contentText(messages[last]?.content) : '',
    chat_history: messages
      .filter((_, i) => i !== last)
      .map((m) => ({ role: ROLES[String(m?.role)] ?? 'USER', message: contentText(m?.content) })),
    stream: request.stream === true,
    max_tokens: Number(request.max_completion_tokens ?? request.max_tokens) || DEFAULT_MAX_TOKENS,
  };
  if (typeof request.temperature === 'number') body.temperature = request.temperature;
  if (typeof request.top_p === 'number') body.p = request.top_p;
  if (typeof request.seed === 'number') body.seed = request.seed;
  const stop = typeof request.stop === 'string' ? [request.stop] : Array.isArray(request.stop) ? request.stop : undefined;
  if (stop?.length) body.stop_sequences = stop;
  return body;
}

/** Billed units are what Cohere charges (its `tokens` also count the prompt template). */
export function cohereUsage(meta: unknown): Usage | undefined {
  const billed = (meta as Json | undefined)?.billed_units;
  const promptTokens = Number(billed?.input_tokens) || 0;
  const completionTokens = Number(billed?.output_tokens) || 0;
  if (promptTokens <= 0 && completionTokens <= 0) return undefined;
  return {
    promptTokens: Math.max(0, Math.floor(promptTokens)),
    completionTokens: Math.max(0, Math.floor(completionTokens)),
    cachedTokens: 0,
  };
}

function finishReason(reason: unknown): string {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason === 'ERROR_TOXIC') return 'content_filter';
  return 'stop';
}

function cohereResponseToHub(native: Json, model: string): { response: Json; usage?: Usage } {
  return {
    response: {
      id: String(native.response_id ?? native.generation_id ?? ''),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        { index: 0, message: { role: 'assistant', content: String(native.text ?? '') }, finish_reason: finishReason(native.finish_reason) },
      ],
    },
    usage: cohereUsage(native.meta),
  };
}

/** Cohere v1 stream events (one JSON per line): text-generation carries text, stream-end the full response and its meta. */
class CohereStreamDecoder implements StreamDecoder {
  private last?: Usage;
  private id = '';
  private readonly created = Math.floor(Date.now() / 1000);

  constructor(private readonly model: string) {}

  decode(event: SseEvent): HubChunk[] {
    const data = parseJsonObject(event.data);
    if (!data) return [];
    this.id ||= String(data.generation_id ?? data.response?.response_id ?? '');
    const chunk = (delta: Json, finish: string | null = null): HubChunk => hubChunk(this.id, this.created, this.model, delta, finish);
    if (data.event_type === 'text-generation' && typeof data.text === 'string' && data.text) return [chunk({ content: data.text })];
    if (data.event_type === 'stream-end' || data.is_finished === true) {
      this.last = cohereUsage(data.response?.meta) ?? this.last;
      if (data.finish_reason === 'ERROR') throw new Error(String(data.response?.text || 'Cohere stream error'));
      return [chunk({}, finishReason(data.finish_reason))];
    }
    return [];
  }

  usage(): Usage | undefined {
    return this.last;
  }
}

export const cohereCodec: FormatCodec = {
  id: 'cohere',
  ...providerOnly('Cohere'),
  requestFromHub: hubToCohere,
  responseToHub: cohereResponseToHub,
  streamDecoder: (model) => new CohereStreamDecoder(model),
  // Cohere's errors: {"message": "..."} (with an HTTP error status).
  isErrorBody: (native) => native.text === undefined && typeof native.message === 'string',
};
