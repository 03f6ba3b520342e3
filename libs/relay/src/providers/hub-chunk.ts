import type { HubChunk, Json } from './types.js';

/** A hub stream chunk with one choice: what every native stream decoder turns a provider's event into. */
export function hubChunk(id: string, created: number, model: string, delta: Json, finish: string | null = null): HubChunk {
  return { id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] };
}

/**
 * Which tool call a streamed tool_calls entry belongs to: its `index`; without one (some OpenAI-compatible
 * providers), a new call when it brings its own id, else the call being streamed, else its position in the
 * chunk (new-api's fallback).
 */
export function toolKey(call: Json, position: number, current: string | undefined): string {
  if (typeof call?.index === 'number') return `index:${call.index}`;
  if (typeof call?.id === 'string' && call.id) return `id:${call.id}`;
  return current ?? `index:${position}`;
}
