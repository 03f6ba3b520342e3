import type { Usage } from '../stream/usage.js';
import type { HubChunk, HubResponse, SseEvent, StreamDecoder } from './types.js';

/**
 * A whole provider stream read into one hub answer, for providers called in streaming mode even when the client
 * asked for a single answer (Coze: its non-stream API needs polling). Text, reasoning and the last finish reason
 * are joined; the usage is the decoder's.
 */
export function aggregateStream(decoder: StreamDecoder, events: SseEvent[], model: string): { response: HubResponse; usage?: Usage } {
  let content = '';
  let reasoning = '';
  let finish: string | null = null;
  let first: HubChunk | undefined;
  for (const event of events)
    for (const chunk of decoder.decode(event)) {
      first ??= chunk;
      const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
      if (typeof choice?.delta?.content === 'string') content += choice.delta.content;
      if (typeof choice?.delta?.reasoning_content === 'string') reasoning += choice.delta.reasoning_content;
      if (choice?.finish_reason) finish = choice.finish_reason;
    }
  const message: Record<string, unknown> = { role: 'assistant', content };
  if (reasoning) message.reasoning_content = reasoning;
  const response = {
    id: String(first?.id ?? ''),
    object: 'chat.completion',
    created: Number(first?.created) || Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: finish ?? 'stop' }],
  };
  return { response, usage: decoder.usage() };
}
