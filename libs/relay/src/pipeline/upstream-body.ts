import type { RelayChannel } from '@gw/channel';
import type { RelayRequest } from './relay-request.js';

/**
 * Channel types whose API accepts `stream_options` (new-api's list: OpenAI, Azure, Ollama, Anthropic, Ali,
 * Gemini, Moonshot, Zhipu v4, AWS, MiniMax, Cloudflare, SiliconFlow, DeepSeek, VolcEngine, BaiduV2, xAI,
 * Submodel, Codex). For every other type the field is dropped.
 */
const STREAM_OPTIONS_TYPES: ReadonlySet<number> = new Set([1, 3, 4, 14, 17, 24, 25, 26, 33, 35, 39, 40, 43, 45, 46, 48, 53, 57]);

export class ModelMappingCycleError extends Error {
  constructor(readonly model: string) {
    super('model mapping contains a cycle');
  }
}

/**
 * Follows the channel's model_mapping as a chain (a→b→c uses c). A mapping that comes back to a model
 * already seen is a configuration error of the channel, not a silent stop.
 */
export function resolveModelMapping(mapping: Record<string, string>, model: string): string {
  let current = model;
  let next = mapping[current];
  if (!next || next === current) return current;
  const seen = new Set([current]);
  while (next && next !== current) {
    if (seen.has(next)) throw new ModelMappingCycleError(model);
    seen.add(next);
    current = next;
    next = mapping[current];
  }
  return current;
}

/**
 * The body sent to one channel: the client's body (shallow copy, never mutated) with the upstream model and
 * stream_options per type and FORCE_STREAM_OPTION (the channel's param override comes after, in UpstreamCall).
 */
export function buildUpstreamBody(
  request: RelayRequest,
  channel: RelayChannel,
  upstreamModel: string,
  forceStreamOption: boolean,
  dropFields?: readonly string[],
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...request.body };
  if (dropFields) for (const field of dropFields) delete body[field];
  for (const field of channel.blockedFields) delete body[field];
  if (upstreamModel !== body.model) body.model = upstreamModel;
  // stream_options belongs to chat and completions (the Responses API reports usage in its last event).
  if (request.stream && (request.kind === 'chat' || request.kind === 'completions')) {
    if (!STREAM_OPTIONS_TYPES.has(channel.type)) delete body.stream_options;
    else if (forceStreamOption) body.stream_options = { ...(body.stream_options as object | undefined), include_usage: true };
  }
  return body;
}
