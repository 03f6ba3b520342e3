import type { HubChunk, Json } from './types.js';

/** A hub stream chunk with one choice: what every native stream decoder turns a provider's event into. */
export function hubChunk(id: string, created: number, model: string, delta: Json, finish: string | null = null): HubChunk {
  return { id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] };
}
