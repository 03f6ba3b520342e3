import type { UpstreamEndpoint } from '@gw/upstream';
import { codecOf } from '../providers/registry.js';
import type { FormatId, HubRequest } from '../providers/types.js';
import {
  MULTIPART_KINDS,
  OPENAI_OTHER_KINDS,
  parseMultipart,
  parseOpenAiOther,
  withPathModel,
  type MultipartKind,
  type OpenAiOtherKind,
} from './openai-request.js';
import { parseGeminiEmbeddings } from './gemini-embed-request.js';
import { badRequest } from './relay-error.js';
import { checkModel } from './model-name.js';

/**
 * The relay's inbound request kinds: OpenAI's three text routes, Anthropic Messages, Gemini generateContent
 * and Gemini's embedContent / batchEmbedContents.
 */
export type RelayKind =
  | 'chat'
  | 'completions'
  | 'embeddings'
  | 'messages'
  | 'gemini'
  | 'gemini_embeddings'
  | OpenAiOtherKind
  | MultipartKind;

/** The wire format a client of each kind speaks (its errors and answers come back in it). */
export function formatOfKind(kind: RelayKind): FormatId {
  return kind === 'messages' ? 'anthropic' : kind === 'gemini' || kind === 'gemini_embeddings' ? 'gemini' : 'openai';
}

/** What the route itself says of a request (Gemini puts the model, the stream mode and the action in the path). */
export interface RouteFacts {
  model?: string;
  stream?: boolean;
  /** Gemini's `:batchEmbedContents` (else `:embedContent`). */
  batch?: boolean;
}

/** The largest max_tokens accepted: far above any model's limit, far below integer overflow (threats M2). */
export const MAX_OUTPUT_TOKENS = 10_000_000;

/** A client request, validated just enough to route and bill it; the body itself is forwarded as sent. */
export interface RelayRequest {
  kind: RelayKind;
  /** The client's wire format. */
  format: FormatId;
  /** The request as OpenAI chat, the hub every conversion starts from (the body itself for OpenAI clients). */
  hub: HubRequest;
  endpoint: UpstreamEndpoint;
  /** The request path, for the log (`other.request_path`). */
  path: string;
  body: Record<string, unknown>;
  model: string;
  stream: boolean;
  /**
   * The client gets the usage chunk: `stream_options.include_usage`, or true when a stream has no
   * stream_options at all (new-api's default, which OpenAI-style clients of new-api count tokens with).
   */
  includeUsage: boolean;
  /** max_tokens / max_completion_tokens / max_output_tokens, 0 when absent. */
  maxTokens: number;
  /** Requests billed per call: the multiple of the model's fixed price (images: count × size × quality). */
  callFactor?: number;
  /** Image generations and edits: the pictures asked for (n), a billing expression's image_count. */
  imageCount?: number;
  /** A multipart upload, forwarded re-encoded with the upstream model. */
  multipart?: FormData;
  /** Gemini's `:batchEmbedContents` (gemini_embeddings only). */
  batch?: boolean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readMaxTokens(body: Record<string, unknown>): number {
  for (const field of ['max_tokens', 'max_completion_tokens', 'max_output_tokens', 'maxOutputTokens']) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw badRequest(`${field} must be a non-negative integer`);
    if (value > MAX_OUTPUT_TOKENS) throw badRequest(`${field} must be at most ${MAX_OUTPUT_TOKENS}`);
    if (value > 0) return value;
  }
  return 0;
}

/** Checks what routing and billing rely on; anything malformed is a 400, never a 500. */
export function parseRelayRequest(kind: RelayKind, path: string, raw: unknown, route: RouteFacts = {}): RelayRequest {
  if (kind === 'messages') return parseMessages(path, raw);
  if (kind === 'gemini') return parseGemini(path, raw, route);
  if (kind === 'gemini_embeddings') return parseGeminiEmbeddings(path, raw, route);
  if (OPENAI_OTHER_KINDS.has(kind)) return parseOpenAiOther(kind as OpenAiOtherKind, path, raw);
  if (MULTIPART_KINDS.has(kind)) return parseMultipart(kind as MultipartKind, path, raw);
  if (kind === 'embeddings') raw = withPathModel(raw, route);
  if (!isObject(raw)) throw badRequest('request body must be a JSON object');
  const model = checkModel(raw.model);
  if (kind === 'chat' && !Array.isArray(raw.messages)) throw badRequest('messages must be an array');
  if (kind === 'completions' && raw.prompt === undefined) throw badRequest('prompt is required');
  if (kind === 'embeddings' && (raw.input === undefined || raw.input === null || raw.input === '')) throw badRequest('input is required');
  if (raw.stream !== undefined && raw.stream !== null && typeof raw.stream !== 'boolean') throw badRequest('stream must be a boolean');
  const stream = kind !== 'embeddings' && raw.stream === true;
  const options = raw.stream_options;
  if (options !== undefined && options !== null && !isObject(options)) throw badRequest('stream_options must be an object');
  return {
    kind,
    format: 'openai',
    hub: raw,
    endpoint: kind as 'chat' | 'completions' | 'embeddings',
    path,
    body: raw,
    model,
    stream,
    includeUsage: stream && (options === undefined || options === null || (isObject(options) && options.include_usage === true)),
    maxTokens: kind === 'embeddings' ? 0 : readMaxTokens(raw),
  };
}

/** Anthropic Messages: model, messages and (optionally) max_tokens and stream, as Anthropic validates them. */
function parseMessages(path: string, raw: unknown): RelayRequest {
  if (!isObject(raw)) throw badRequest('request body must be a JSON object');
  const model = checkModel(raw.model);
  if (!Array.isArray(raw.messages)) throw badRequest('messages: field required');
  if (raw.stream !== undefined && raw.stream !== null && typeof raw.stream !== 'boolean') throw badRequest('stream must be a boolean');
  if (raw.system !== undefined && typeof raw.system !== 'string' && !Array.isArray(raw.system))
    throw badRequest('system must be a string or an array of text blocks');
  if (raw.tools !== undefined && !Array.isArray(raw.tools)) throw badRequest('tools must be an array');
  const stream = raw.stream === true;
  const maxTokens = readMaxTokens({ max_tokens: raw.max_tokens });
  return {
    kind: 'messages',
    format: 'anthropic',
    hub: codecOf('anthropic').requestToHub(raw, model, stream),
    endpoint: 'chat',
    path,
    body: raw,
    model,
    stream,
    includeUsage: false,
    maxTokens,
  };
}

/** Gemini generateContent: the model and the stream mode come from the path, the body holds contents. */
function parseGemini(path: string, raw: unknown, route: RouteFacts): RelayRequest {
  if (!isObject(raw)) throw badRequest('request body must be a JSON object');
  const model = checkModel(route.model);
  if (!Array.isArray(raw.contents)) throw badRequest('contents must be an array');
  const config = raw.generationConfig;
  if (config !== undefined && config !== null && !isObject(config)) throw badRequest('generationConfig must be an object');
  const stream = route.stream === true;
  const maxTokens = isObject(config) ? readMaxTokens({ maxOutputTokens: config.maxOutputTokens }) : 0;
  return {
    kind: 'gemini',
    format: 'gemini',
    hub: codecOf('gemini').requestToHub(raw, model, stream),
    endpoint: 'chat',
    path,
    body: raw,
    model,
    stream,
    includeUsage: false,
    maxTokens,
  };
}
