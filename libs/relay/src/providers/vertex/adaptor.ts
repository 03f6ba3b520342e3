import { buildProviderRequest, type BuiltRequest } from '@gw/upstream';
import { anthropicAdaptor } from '../anthropic/index.js';
import { geminiAdaptor, geminiModelName } from '../gemini/index.js';
import type { AdaptorCall, ChannelAdaptor } from '../types.js';
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

function publisherUrl(call: AdaptorCall, publisher: 'google' | 'anthropic', model: string, action: string): BuiltRequest {
  const { upstream } = call.channel;
  const account = parseServiceAccount(upstream.key);
  const region = vertexRegion(upstream.other, call.model);
  const host = region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`;
  const path =
    `/v1/projects/${encodeURIComponent(account.projectId)}/locations/${region}` +
    `/publishers/${publisher}/models/${encodeURIComponent(model).replaceAll('%40', '@')}:${action}`;
  return buildProviderRequest({ ...upstream, baseUrl: upstream.baseUrl || host }, path, {}, call.stream);
}

async function withAccessToken(built: BuiltRequest, _body: string, call: AdaptorCall): Promise<BuiltRequest> {
  const allowPrivate = call.settings.get<boolean>('AllowPrivateOutboundUrls') === true;
  const token = await vertexTokens.get(parseServiceAccount(call.channel.upstream.key), allowPrivate);
  return { ...built, headers: { ...built.headers, authorization: `Bearer ${token}` } };
}

/**
 * Gemini on Vertex: generateContent / streamGenerateContent?alt=sse of publisher google, Gemini's own body; the
 * model without its thinking suffix while the Gemini thinking adapter is on (as new-api's Vertex adaptor).
 * `/v1/embeddings` goes to the model's `:predict` (embeddings.ts).
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
  finishBody: geminiAdaptor.finishBody,
  authorize: withAccessToken,
  // new-api: `:predict` of the upstream model as named (no thinking suffix to strip), same host, region and token.
  embeddings: {
    ...vertexEmbeddingShape,
    buildRequest: (call) => publisherUrl({ ...call, stream: false }, 'google', call.model, 'predict'),
  },
};

/** Claude on Vertex: rawPredict / streamRawPredict of publisher anthropic, a Messages body with Vertex's version. */
const vertexClaude: ChannelAdaptor = {
  format: 'anthropic',
  buildChatRequest: (call) =>
    publisherUrl(call, 'anthropic', vertexClaudeModel(call.model), call.stream ? 'streamRawPredict' : 'rawPredict'),
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
 * (a signed JWT posted to its token_uri, the token cached until shortly before it expires); the region is the
 * channel's `other` (default us-central1). Claude models go to Anthropic's Vertex endpoints, the rest to Gemini's.
 */
export const vertexAdaptor: ChannelAdaptor = {
  ...vertexGemini,
  forModel: (model) => (/^claude/i.test(model) ? vertexClaude : vertexGemini),
};
