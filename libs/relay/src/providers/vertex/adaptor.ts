import { buildProviderRequest, type BuiltRequest } from '@gw/upstream';
import { anthropicAdaptor } from '../anthropic/index.js';
import { geminiAdaptor, geminiModelName, googleImagesGenerations } from '../gemini/index.js';
import type { RelayChannel } from '@gw/channel';
import { type AdaptorCall, AdaptorAuthError, type ChannelAdaptor } from '../types.js';
import { AccessTokenCache, parseServiceAccount } from './access-token.js';
import { vertexEmbeddingShape } from './embeddings.js';

/** The body version Claude on Vertex requires (Anthropic's Vertex AI docs). */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';
const DEFAULT_REGION = 'us-central1';
const REGION = /^(?:global|[a-z]+-[a-z]+\d+)$/;

export const vertexTokens = new AccessTokenCache();

/**
 * The region of a call: the channel's `other` field, either a region or new-api's JSON map by model
 * (`{"default": "us-central1", "claude-sonnet-4": "us-east5"}`); us-central1 when it says nothing usable.
 */
export function vertexRegion(other: string | undefined, model: string): string {
  let region = (other ?? '').trim();
  if (region.startsWith('{')) {
    try {
      const map = JSON.parse(region) as Record<string, unknown>;
      const chosen = map[model] ?? map.default;
      region = typeof chosen === 'string' ? chosen.trim() : '';
    } catch {
      region = '';
    }
  }
  return REGION.test(region) ? region : DEFAULT_REGION;
}

/** Claude model names with a date use Vertex's `name@date` form (claude-3-5-sonnet-20240620 → claude-3-5-sonnet@20240620). */
export function vertexClaudeModel(model: string): string {
  return model.includes('@') ? model : model.replace(/-(\d{8})$/, '@$1');
}

/**
 * The channel's key kind, new-api's `vertex_key_type` in the channel's other settings: `json` (default), a
 * service-account key file exchanged for an OAuth token; `api_key`, a Google Cloud API key (Vertex AI express
 * mode), sent as is and only good for Google's own models.
 */
export function usesApiKey(channel: RelayChannel): boolean {
  return channel.otherSettings?.vertex_key_type === 'api_key';
}

function publisherUrl(call: AdaptorCall, publisher: 'google' | 'anthropic', model: string, action: string): BuiltRequest {
  const { upstream } = call.channel;
  const region = vertexRegion(upstream.other, call.model);
  const host = region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`;
  const target = { ...upstream, baseUrl: upstream.baseUrl || host };
  const modelPath = `/publishers/${publisher}/models/${encodeURIComponent(model).replaceAll('%40', '@')}:${action}`;
  if (usesApiKey(call.channel)) {
    // Express mode has no project or location in the path. The key goes in Google's API-key header rather than
    // new-api's `?key=`, so it never sits in a URL (proxy logs, error messages); Google reads either.
    if (!upstream.key.trim()) throw new AdaptorAuthError('the Vertex AI API key is empty');
    return buildProviderRequest(target, `/v1${modelPath}`, { 'x-goog-api-key': upstream.key.trim() }, call.stream);
  }
  const account = parseServiceAccount(upstream.key);
  const path = `/v1/projects/${encodeURIComponent(account.projectId)}/locations/${region}${modelPath}`;
  return buildProviderRequest(target, path, {}, call.stream);
}

async function withAccessToken(built: BuiltRequest, _body: string, call: AdaptorCall): Promise<BuiltRequest> {
  if (usesApiKey(call.channel)) return built;
  const allowPrivate = call.settings.get<boolean>('AllowPrivateOutboundUrls') === true;
  const token = await vertexTokens.get(parseServiceAccount(call.channel.upstream.key), allowPrivate);
  return { ...built, headers: { ...built.headers, authorization: `Bearer ${token}` } };
}

/** The body without `id` in any functionResponse (or function_response) part; the rest as it was. */
export function withoutFunctionResponseIds(body: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(body.contents)) return body;
  const strip = (part: unknown) => {
    if (typeof part !== 'object' || part === null) return part;
    const entry = part as Record<string, unknown>;
    const key = entry.functionResponse ? 'functionResponse' : entry.function_response ? 'function_response' : undefined;
    const response = key ? entry[key] : undefined;
    if (!key || typeof response !== 'object' || response === null || !('id' in response)) return part;
    const { id: _id, ...rest } = response as Record<string, unknown>;
    return { ...entry, [key]: rest };
  };
  const contents = body.contents.map((content: unknown) => {
    const parts = typeof content === 'object' && content !== null ? (content as { parts?: unknown }).parts : undefined;
    return Array.isArray(parts) ? { ...(content as object), parts: parts.map(strip) } : content;
  });
  return { ...body, contents };
}

/**
 * Gemini on Vertex: generateContent / streamGenerateContent?alt=sse of publisher google, Gemini's own body; the
 * model without its thinking suffix while the Gemini thinking adapter is on (as new-api's Vertex adaptor).
 * `/v1/embeddings` goes to the model's `:predict` (embeddings.ts), `/v1/images/generations` to Imagen's.
 */
const vertexGemini: ChannelAdaptor = {
  format: 'gemini',
  buildChatRequest: (call) =>
    publisherUrl(
      call,
      'google',
      geminiModelName(call.model, call.settings),
      call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent',
    ),
  finishBody(body, call, converted) {
    const finished = geminiAdaptor.finishBody!(body, call, converted);
    // A Gemini client's function results may carry an `id` (the Gemini API takes it); Vertex AI refuses it.
    return !converted && call.settings.get<boolean>('gemini.remove_function_response_id_enabled') !== false
      ? withoutFunctionResponseIds(finished)
      : finished;
  },
  authorize: withAccessToken,
  // new-api: `:predict` of the upstream model as named (no thinking suffix to strip), same host, region and token.
  embeddings: {
    ...vertexEmbeddingShape,
    buildRequest: (call) => publisherUrl({ ...call, stream: false }, 'google', call.model, 'predict'),
  },
  // As on the Gemini API: Imagen through :predict, Gemini's image models through generateContent (new-api).
  endpoints: {
    images_generations: googleImagesGenerations((call, action) => publisherUrl({ ...call, stream: false }, 'google', call.model, action)),
  },
};

/** Claude on Vertex: rawPredict / streamRawPredict of publisher anthropic, a Messages body with Vertex's version. */
const vertexClaude: ChannelAdaptor = {
  format: 'anthropic',
  buildChatRequest(call) {
    // Google serves Anthropic's models only to OAuth callers: an express-mode API key gets a 401 from rawPredict.
    if (usesApiKey(call.channel))
      throw new AdaptorAuthError('Claude models on Vertex AI need a service-account key (vertex_key_type json), not an API key');
    return publisherUrl(call, 'anthropic', vertexClaudeModel(call.model), call.stream ? 'streamRawPredict' : 'rawPredict');
  },
  finishBody(body, call, converted) {
    const thought = anthropicAdaptor.finishBody ? anthropicAdaptor.finishBody(body, call, converted) : body;
    // The model is in the URL; the stream flag stays in the body (streamRawPredict reads it).
    const { model: _model, ...rest } = thought;
    return { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest };
  },
  authorize: withAccessToken,
};

/**
 * Google Vertex AI (type 41): the key is a service-account JSON key file, exchanged for an OAuth access token
 * (a signed JWT posted to its token_uri, the token cached until shortly before it expires), or with
 * `vertex_key_type: api_key` an express-mode API key; the region is the channel's `other` (default
 * us-central1). Claude models go to Anthropic's Vertex endpoints, the rest to Gemini's.
 */
export const vertexAdaptor: ChannelAdaptor = {
  ...vertexGemini,
  forModel: (model) => (/^claude/i.test(model) ? vertexClaude : vertexGemini),
};
