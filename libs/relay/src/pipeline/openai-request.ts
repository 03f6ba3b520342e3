import type { UpstreamEndpoint } from '@gw/upstream';
import { checkModel } from './model-name.js';
import { badRequest } from './relay-error.js';
import type { MultipartBody } from '../http/multipart-body.js';
import type { RelayKind, RelayRequest, RouteFacts } from './relay-request.js';

/**
 * OpenAI's other JSON routes (Responses, images, speech, rerank, moderations, edits), each checked for what
 * routing and billing need and otherwise forwarded as sent. Default models are new-api's.
 */
export type OpenAiOtherKind =
  | 'responses'
  | 'responses_compact'
  | 'images_generations'
  | 'audio_speech'
  | 'rerank'
  | 'moderations'
  | 'edits';
/** Routes whose body is a multipart upload. */
export type MultipartKind = 'images_edits' | 'audio_transcriptions' | 'audio_translations';

export const MULTIPART_KINDS: ReadonlySet<RelayKind> = new Set<RelayKind>(['images_edits', 'audio_transcriptions', 'audio_translations']);

const DEFAULT_MODEL: Partial<Record<OpenAiOtherKind, string>> = {
  images_generations: 'dall-e',
  audio_speech: 'tts-1',
  moderations: 'text-moderation-stable',
};

const MAX_IMAGES = 10;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkMaxTokens(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 10_000_000)
    throw badRequest(`${field} must be a non-negative integer`);
  return value;
}

/**
 * new-api's per-image factors for fixed-price image models: DALL·E 3's tall and wide sizes cost twice the
 * square one, and its HD quality 2× (square) or 1.5× (others); DALL·E 2's smaller sizes cost less.
 */
export function imageCallFactor(model: string, size: unknown, quality: unknown, n: number): number {
  let sizeFactor = 1;
  let qualityFactor = 1;
  if (model.startsWith('dall-e-2') || model === 'dall-e') {
    if (size === '256x256') sizeFactor = 0.4;
    else if (size === '512x512') sizeFactor = 0.45;
  } else if (model.startsWith('dall-e-3')) {
    if (size === '1024x1792' || size === '1792x1024') sizeFactor = 2;
    if (quality === 'hd') qualityFactor = size === '1024x1792' || size === '1792x1024' ? 1.5 : 2;
  }
  return sizeFactor * qualityFactor * n;
}

export function parseOpenAiOther(kind: OpenAiOtherKind, path: string, raw: unknown): RelayRequest {
  if (!isObject(raw)) throw badRequest('request body must be a JSON object');
  const given = raw.model;
  if (given !== undefined && given !== null && typeof given !== 'string') throw badRequest('model must be a string');
  const model = checkModel((typeof given === 'string' && given.trim()) || DEFAULT_MODEL[kind]);
  if (raw.stream !== undefined && raw.stream !== null && typeof raw.stream !== 'boolean') throw badRequest('stream must be a boolean');
  let stream = false;
  let maxTokens = 0;
  let callFactor: number | undefined;
  let imageCount: number | undefined;
  switch (kind) {
    case 'responses':
    case 'responses_compact':
      if (raw.input === undefined && raw.previous_response_id === undefined) throw badRequest('input is required');
      stream = kind === 'responses' && raw.stream === true;
      maxTokens = checkMaxTokens(raw.max_output_tokens, 'max_output_tokens');
      break;
    case 'images_generations': {
      if (typeof raw.prompt !== 'string' || !raw.prompt.trim()) throw badRequest('prompt is required');
      const n = raw.n ?? 1;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_IMAGES)
        throw badRequest(`n must be an integer from 1 to ${MAX_IMAGES}`);
      callFactor = imageCallFactor(model, raw.size, raw.quality, n);
      imageCount = n;
      break;
    }
    case 'audio_speech':
      if (typeof raw.input !== 'string' || !raw.input) throw badRequest('input is required');
      break;
    case 'rerank':
      if (typeof raw.query !== 'string' || !raw.query) throw badRequest('query is required');
      if (!Array.isArray(raw.documents) || raw.documents.length === 0) throw badRequest('documents must be a non-empty array');
      break;
    case 'moderations':
      if (raw.input === undefined || raw.input === null || raw.input === '') throw badRequest('input is required');
      break;
    case 'edits':
      if (typeof raw.instruction !== 'string') throw badRequest('instruction is required');
      break;
  }
  const body = raw.model === model ? raw : { ...raw, model };
  const endpoint: UpstreamEndpoint = kind;
  return { kind, format: 'openai', hub: body, endpoint, path, body, model, stream, includeUsage: false, maxTokens, callFactor, imageCount };
}

/** /v1/engines/{model}/embeddings: the legacy route names the model in the path. */
export function withPathModel(raw: unknown, route: RouteFacts | undefined): unknown {
  if (!route?.model || !isObject(raw) || (typeof raw.model === 'string' && raw.model.trim())) return raw;
  return { ...raw, model: route.model };
}

export const OPENAI_OTHER_KINDS: ReadonlySet<RelayKind> = new Set<RelayKind>([
  'responses',
  'responses_compact',
  'images_generations',
  'audio_speech',
  'rerank',
  'moderations',
  'edits',
]);

function textsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(textsOf);
  if (!isObject(value)) return [];
  if (typeof value.text === 'string') return [value.text];
  return [...textsOf(value.content), ...textsOf(value.instructions)];
}

/**
 * What the local prompt count reads for a request: the hub body for chat-like kinds, the texts a route
 * carries otherwise (rerank's query and documents, an edit's instruction and input, Responses' input items).
 */
export function promptBodyOf(request: RelayRequest): unknown {
  const body = request.body as Record<string, unknown>;
  switch (request.kind) {
    case 'rerank':
      return { input: [...textsOf(body.query), ...textsOf(body.documents)] };
    case 'edits':
      return { input: [...textsOf(body.instruction), ...textsOf(body.input)] };
    case 'responses':
    case 'responses_compact':
      return { input: [...textsOf(body.instructions), ...textsOf(body.input)] };
    case 'images_generations':
      return { input: textsOf(body.prompt) };
    default:
      return request.hub;
  }
}

/** Speech is billed by the characters of its input (one token per character, as new-api counts TTS). */
export function speechCharacters(request: RelayRequest): number {
  return typeof request.body.input === 'string' ? [...request.body.input].length : 0;
}

/** A multipart upload: the model (new-api's defaults whisper-1 and dall-e), the file part, and for edits a prompt. */
export function parseMultipart(kind: MultipartKind, path: string, raw: unknown): RelayRequest {
  const upload = raw as MultipartBody | undefined;
  if (!upload || !(upload.form instanceof FormData)) throw badRequest('request body must be multipart/form-data');
  const { fields, files } = upload;
  const model = checkModel(fields.model?.trim() || (kind === 'images_edits' ? 'dall-e' : 'whisper-1'));
  let callFactor: number | undefined;
  let imageCount: number | undefined;
  if (kind === 'images_edits') {
    if (!files.some((name) => name === 'image' || name === 'image[]')) throw badRequest('image is required');
    if (!fields.prompt?.trim()) throw badRequest('prompt is required');
    const n = fields.n === undefined ? 1 : Number(fields.n);
    if (!Number.isInteger(n) || n < 1 || n > MAX_IMAGES) throw badRequest(`n must be an integer from 1 to ${MAX_IMAGES}`);
    callFactor = imageCallFactor(model, fields.size, fields.quality, n);
    imageCount = n;
  } else if (!files.includes('file')) throw badRequest('file is required');
  const body: Record<string, unknown> = { ...fields, model };
  return {
    kind,
    format: 'openai',
    hub: body,
    endpoint: kind,
    path,
    body,
    model,
    stream: false,
    includeUsage: false,
    maxTokens: 0,
    callFactor,
    imageCount,
    multipart: upload.form,
  };
}
