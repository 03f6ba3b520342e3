import type { Usage } from '../../stream/usage.js';
import { contentText, providerOnly } from '../provider-only.js';
import { parseJsonObject } from '../sse-events.js';
import type { FormatCodec, HubChunk, HubRequest, Json, ProviderSettings, SseEvent, StreamDecoder } from '../types.js';
import { hubChunk } from '../hub-chunk.js';

/** Coze needs a user id per call; a client that sends none (OpenAI `user`) is this one. */
export const COZE_DEFAULT_USER = 'new-api';

/**
 * OpenAI chat → Coze chat v3 (`/v3/chat`): the bot keeps its own persona, so system messages are dropped; user
 * and assistant turns become `additional_messages` (assistant turns as `answer`). Always streamed: Coze's
 * non-stream chat is create-then-poll, and the relay reads one stream instead. `bot_id` is set by the adaptor.
 */
function hubToCoze(request: HubRequest, _model: string, _settings: ProviderSettings): Record<string, unknown> {
  const messages: Json[] = Array.isArray(request.messages) ? request.messages : [];
  const additional = messages
    .filter((m) => m?.role === 'user' || m?.role === 'assistant')
    .map((m) =>
      m.role === 'user'
        ? { role: 'user', content: contentText(m.content), content_type: 'text' }
        : { role: 'assistant', type: 'answer', content: contentText(m.content), content_type: 'text' },
    );
  return {
    user_id: typeof request.user === 'string' && request.user ? request.user : COZE_DEFAULT_USER,
    additional_messages: additional,
    stream: true,
    auto_save_history: true,
  };
}

export function cozeUsage(raw: unknown): Usage | undefined {
  const u = raw as Json | undefined;
  const promptTokens = Number(u?.input_count) || 0;
  const completionTokens = Number(u?.output_count) || 0;
  if (promptTokens <= 0 && completionTokens <= 0) return undefined;
  return { promptTokens: Math.floor(promptTokens), completionTokens: Math.floor(completionTokens), cachedTokens: 0 };
}

/**
 * Coze's stream: SSE with the kind in `event:`. conversation.message.delta of type `answer` carries text (and
 * reasoning_content for reasoning models); conversation.chat.completed carries the usage; conversation.chat.failed
 * and `error` end the stream; the rest (created, in_progress, message.completed, follow-up suggestions, done) is
 * bookkeeping.
 */
class CozeStreamDecoder implements StreamDecoder {
  private last?: Usage;
  private id = '';
  private readonly created = Math.floor(Date.now() / 1000);

  constructor(private readonly model: string) {}

  decode(event: SseEvent): HubChunk[] {
    const data = parseJsonObject(event.data);
    if (!data) return [];
    this.id ||= String(data.chat_id ?? data.id ?? '');
    const chunk = (delta: Json, finish: string | null = null): HubChunk => hubChunk(this.id, this.created, this.model, delta, finish);
    switch (event.event) {
      case 'conversation.message.delta': {
        if (data.type !== undefined && data.type !== 'answer') return [];
        const delta: Json = {};
        if (typeof data.content === 'string' && data.content) delta.content = data.content;
        if (typeof data.reasoning_content === 'string' && data.reasoning_content) delta.reasoning_content = data.reasoning_content;
        return Object.keys(delta).length ? [chunk(delta)] : [];
      }
      case 'conversation.chat.completed':
        this.last = cozeUsage(data.usage) ?? this.last;
        return [chunk({}, 'stop')];
      case 'conversation.chat.failed':
        throw new Error(String(data.last_error?.msg || 'Coze chat failed'));
      case 'error':
        throw new Error(String(data.msg ?? data.message ?? 'Coze stream error'));
      default:
        return [];
    }
  }

  usage(): Usage | undefined {
    return this.last;
  }
}

export const cozeCodec: FormatCodec = {
  id: 'coze',
  ...providerOnly('Coze'),
  requestFromHub: hubToCoze,
  // Only reached for a JSON answer to a streamed call: Coze's errors ({code != 0, msg}).
  responseToHub: (native, model) => ({
    response: { id: '', object: 'chat.completion', created: 0, model, choices: [] },
    usage: cozeUsage(native.data?.usage),
  }),
  streamDecoder: (model) => new CozeStreamDecoder(model),
  isErrorBody: (native) => typeof native.code === 'number' && native.code !== 0,
};
