import { ChannelType } from './channel-types.js';

/**
 * new-api's endpoint types (`constant.EndpointType`): which inbound API a model can be called through.
 * `GET /v1/models` lists them per model as `supported_endpoint_types` (clients with a new-api provider,
 * Cherry Studio's among them, pick the route by it) and `GET /api/pricing` as well.
 */
export type EndpointType =
  | 'openai'
  | 'openai-response'
  | 'openai-response-compact'
  | 'anthropic'
  | 'gemini'
  | 'jina-rerank'
  | 'image-generation'
  | 'embeddings'
  | 'openai-video';

/** The default route of each endpoint type (new-api `common/endpoint_defaults.go`), `supported_endpoint` of /api/pricing. */
export const ENDPOINT_ROUTES: Readonly<Record<EndpointType, { path: string; method: 'POST' }>> = {
  openai: { path: '/v1/chat/completions', method: 'POST' },
  'openai-response': { path: '/v1/responses', method: 'POST' },
  'openai-response-compact': { path: '/v1/responses/compact', method: 'POST' },
  anthropic: { path: '/v1/messages', method: 'POST' },
  gemini: { path: '/v1beta/models/{model}:generateContent', method: 'POST' },
  'jina-rerank': { path: '/v1/rerank', method: 'POST' },
  'image-generation': { path: '/v1/images/generations', method: 'POST' },
  embeddings: { path: '/v1/embeddings', method: 'POST' },
  'openai-video': { path: '/v1/video/generations', method: 'POST' },
};

const RESPONSES_ONLY_MODELS = ['o3-pro', 'o3-deep-research', 'o4-mini-deep-research'];
const IMAGE_MODELS = ['dall-e-3', 'dall-e-2', 'gpt-image-1', 'flux-', 'flux.1-'];

/** Models served through /v1/images/generations (new-api IsImageGenerationModel). */
function isImageGenerationModel(model: string): boolean {
  const lower = model.toLowerCase();
  return lower.startsWith('imagen-') || IMAGE_MODELS.some((name) => lower.includes(name));
}

/** The endpoint types a channel of this type offers for the model (new-api GetEndpointTypesByChannelType). */
export function endpointTypesOf(channelType: number, model: string): EndpointType[] {
  let types: EndpointType[];
  switch (channelType) {
    case ChannelType.OpenAI:
    case ChannelType.Azure:
      types = ['openai', 'openai-response', 'openai-response-compact'];
      break;
    case ChannelType.Jina:
      types = ['jina-rerank'];
      break;
    case ChannelType.Aws:
    case ChannelType.Anthropic:
      types = ['anthropic', 'openai'];
      break;
    case ChannelType.VertexAi:
    case ChannelType.Gemini:
      types = ['gemini', 'openai'];
      break;
    case ChannelType.OpenRouter:
      types = ['openai'];
      break;
    case ChannelType.Xai:
      types = ['openai', 'openai-response'];
      break;
    case ChannelType.Sora:
      types = ['openai-video'];
      break;
    case ChannelType.Codex:
      types = ['openai-response', 'openai-response-compact'];
      break;
    default:
      types = RESPONSES_ONLY_MODELS.some((name) => model.includes(name)) ? ['openai-response'] : ['openai'];
  }
  return isImageGenerationModel(model) ? ['image-generation', ...types] : types;
}

/** The union over the channel types serving a model, in first-seen order (new-api's pricing cache). */
export function endpointTypesOfModel(channelTypes: Iterable<number>, model: string): EndpointType[] {
  const seen = new Set<EndpointType>();
  for (const type of channelTypes) for (const endpoint of endpointTypesOf(type, model)) seen.add(endpoint);
  return [...seen];
}
