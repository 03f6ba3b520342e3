import { buildProviderRequest } from '@gw/upstream';
import { aspectOfSize } from '../image-aspect.js';
import { providerOnly } from '../provider-only.js';
import type { ChannelAdaptor, FormatCodec, Json, ProviderEndpoint } from '../types.js';

/**
 * OpenAI image generation → a Replicate prediction of the model (POST {base}/v1/models/{owner}/{name}/predictions,
 * bearer token, `Prefer: wait` so the answer carries the output), as new-api sends it: prompt, aspect ratio from
 * the size, num_outputs from n, output_format, prompt_upsampling for hd quality, and any `input` object merged in.
 */
const imagesGenerations: ProviderEndpoint = {
  build(call) {
    const path = `/v1/models/${call.model.split('/').map(encodeURIComponent).join('/')}/predictions`;
    const built = buildProviderRequest(call.channel.upstream, path, { authorization: `Bearer ${call.channel.upstream.key}` }, false);
    built.headers = { ...built.headers, prefer: 'wait' };
    return built;
  },
  body(request) {
    const input: Record<string, unknown> = { prompt: request.prompt };
    const aspect = aspectOfSize(request.size);
    if (aspect) input.aspect_ratio = aspect;
    if (typeof request.n === 'number' && request.n > 0) input.num_outputs = request.n;
    if (typeof request.output_format === 'string') input.output_format = request.output_format;
    if (request.quality === 'hd' || request.quality === 'high') input.prompt_upsampling = true;
    if (request.input && typeof request.input === 'object' && !Array.isArray(request.input)) Object.assign(input, request.input);
    return { input };
  },
  answer(native: Json) {
    if (native.error) {
      const error = native.error;
      throw new Error(typeof error === 'string' ? error : String(error?.message ?? error?.detail ?? 'Replicate prediction failed'));
    }
    if (native.status !== undefined && native.status !== 'succeeded')
      throw new Error(`the Replicate prediction is ${native.status} (not finished within the wait)`);
    const outputs = (Array.isArray(native.output) ? native.output : [native.output]).filter(
      (url: unknown): url is string => typeof url === 'string' && url.trim() !== '',
    );
    if (!outputs.length) throw new Error('the Replicate prediction has no output');
    const created = Math.floor((Date.parse(String(native.created_at ?? '')) || Date.now()) / 1000);
    return { response: { created, data: outputs.map((url: string) => ({ url })) } };
  },
};

/** Replicate speaks no chat format the relay converts to: only its image endpoint is served. */
export const replicateCodec: FormatCodec = {
  id: 'replicate',
  ...providerOnly('Replicate'),
  requestFromHub: () => {
    throw new Error('Replicate channels serve image generation only');
  },
  responseToHub: () => {
    throw new Error('Replicate channels serve image generation only');
  },
  streamDecoder: () => {
    throw new Error('Replicate channels serve image generation only');
  },
  isErrorBody: (native) => native.error !== undefined && native.error !== null,
};

/** Replicate (type 56): image generation through predictions (new-api serves images only on it). */
export const replicateAdaptor: ChannelAdaptor = {
  format: 'replicate',
  servesChat: false,
  buildChatRequest: (call) => imagesGenerations.build(call),
  endpoints: { images_generations: imagesGenerations },
};
