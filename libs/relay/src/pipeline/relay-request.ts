import type { UpstreamEndpoint } from '@gw/upstream';
import { badRequest } from './relay-error.js';

export type RelayKind = 'chat' | 'completions' | 'embeddings';

/** The largest max_tokens accepted: far above any model's limit, far below integer overflow (threats M2). */
export const MAX_OUTPUT_TOKENS = 10_000_000;

/** A client request, validated just enough to route and bill it; the body itself is forwarded as sent. */
export interface RelayRequest {
  kind: RelayKind;
  endpoint: UpstreamEndpoint;
  /** The request path, for the log (`other.request_path`). */
  path: string;
  body: Record<string, unknown>;
  model: string;
  stream: boolean;
  /** The client asked for the usage chunk (`stream_options.include_usage: true`). */
  includeUsage: boolean;
  /** max_tokens / max_completion_tokens / max_output_tokens, 0 when absent. */
  maxTokens: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readMaxTokens(body: Record<string, unknown>): number {
  for (const field of ['max_tokens', 'max_completion_tokens', 'max_output_tokens']) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw badRequest(`${field} must be a non-negative integer`);
    if (value > MAX_OUTPUT_TOKENS) throw badRequest(`${field} must be at most ${MAX_OUTPUT_TOKENS}`);
    if (value > 0) return value;
  }
  return 0;
}

/** Checks what routing and billing rely on; anything malformed is a 400, never a 500. */
export function parseRelayRequest(kind: RelayKind, path: string, raw: unknown): RelayRequest {
  if (!isObject(raw)) throw badRequest('request body must be a JSON object');
  const model = raw.model;
  if (typeof model !== 'string' || !model.trim()) throw badRequest('model is required', 'model_required');
  if (model.length > 256) throw badRequest('model name is too long');
  if (kind === 'chat' && !Array.isArray(raw.messages)) throw badRequest('messages must be an array');
  if (kind === 'completions' && raw.prompt === undefined) throw badRequest('prompt is required');
  if (kind === 'embeddings' && (raw.input === undefined || raw.input === null || raw.input === '')) throw badRequest('input is required');
  if (raw.stream !== undefined && raw.stream !== null && typeof raw.stream !== 'boolean') throw badRequest('stream must be a boolean');
  const stream = kind !== 'embeddings' && raw.stream === true;
  const options = raw.stream_options;
  if (options !== undefined && options !== null && !isObject(options)) throw badRequest('stream_options must be an object');
  return {
    kind,
    endpoint: kind,
    path,
    body: raw,
    model: model.trim(),
    stream,
    includeUsage: stream && isObject(options) && options.include_usage === true,
    maxTokens: kind === 'embeddings' ? 0 : readMaxTokens(raw),
  };
}
