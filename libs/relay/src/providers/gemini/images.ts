import { aspectOfSize } from '../image-aspect.js';
import type { Usage } from '../../stream/usage.js';
import type { BuiltRequest } from '@gw/upstream';
import { type AdaptorCall, AdaptorRequestError, type Json, type ProviderEndpoint, type ProviderSettings } from '../types.js';
import { modelAction } from './model-url.js';
import { geminiSafetySettings, isImagineModel } from './request.js';
import { geminiUsage } from './response.js';

/** new-api counts every Imagen picture as a fixed 258 prompt tokens (Google's per-image token count). */
const IMAGEN_TOKENS_PER_IMAGE = 258;

const isImagen = (model: string) => model.startsWith('imagen');

/** The ratio an OpenAI size stands for, or the ratio itself ("16:9"), else square (new-api's default). */
function aspectRatio(size: unknown): string {
  if (typeof size === 'string' && size.includes(':')) return size.trim();
  return aspectOfSize(typeof size === 'string' ? size.trim() : size) ?? '1:1';
}

/** OpenAI quality → Google's imageSize: undefined when the client named none. */
function imageSize(quality: unknown, fourK: boolean): string | undefined {
  if (typeof quality !== 'string' || !quality) return undefined;
  const q = quality.toLowerCase();
  if (q === 'hd' || q === 'high' || q === '2k') return '2K';
  return fourK && q === '4k' ? '4K' : '1K';
}

/** Imagen's `:predict`: one instance with the prompt; n pictures, the ratio, adults allowed (new-api's defaults). */
function imagenBody(request: Json): Json {
  const parameters: Json = { sampleCount: request.n ?? 1, aspectRatio: aspectRatio(request.size), personGeneration: 'allow_adult' };
  const size = imageSize(request.quality, false);
  if (size) parameters.imageSize = size;
  return { instances: [{ prompt: request.prompt }], parameters };
}

/** An image model's generateContent: the prompt as the user's turn, text and image output, the ratio and size. */
function imagineBody(request: Json, settings: ProviderSettings): Json {
  if ((request.n ?? 1) !== 1) throw new AdaptorRequestError('Gemini image generation supports exactly one image per request');
  const imageConfig: Json = { aspectRatio: aspectRatio(request.size) };
  const size = imageSize(request.quality, true);
  if (size) imageConfig.imageSize = size;
  return {
    contents: [{ role: 'user', parts: [{ text: request.prompt }] }],
    generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig },
    safetySettings: geminiSafetySettings(settings),
  };
}

const created = () => Math.floor(Date.now() / 1000);

/** Imagen's predictions as OpenAI's b64_json pictures, billed 258 tokens each; filtered ones are left out. */
function imagenAnswer(native: Json): { response: Json; usage: Usage } {
  const predictions = (native.predictions as unknown[]).filter((p): p is Json => typeof p === 'object' && p !== null);
  const data = predictions
    .filter((p) => !p.raiFilteredReason && typeof p.bytesBase64Encoded === 'string')
    .map((p) => ({ b64_json: p.bytesBase64Encoded }));
  if (!data.length) {
    const reason = predictions.find((p) => p.raiFilteredReason)?.raiFilteredReason;
    throw new Error(reason ? `Imagen generated no image: ${reason}` : 'Imagen generated no image');
  }
  return {
    response: { created: created(), data },
    usage: { promptTokens: IMAGEN_TOKENS_PER_IMAGE * data.length, completionTokens: 0, cachedTokens: 0 },
  };
}

/** An image model's answer: its inline pictures as b64_json, its text as revised_prompt, billed on usageMetadata. */
function imagineAnswer(native: Json): { response: Json; usage?: Usage } {
  const parts: unknown[] = Array.isArray(native.candidates?.[0]?.content?.parts) ? native.candidates[0].content.parts : [];
  const data: Json[] = [];
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part !== 'object' || part === null) continue;
    const p = part as Json;
    const inline = p.inlineData ?? p.inline_data;
    if (inline && typeof inline.data === 'string' && String(inline.mimeType ?? inline.mime_type ?? 'image/').startsWith('image/'))
      data.push({ b64_json: inline.data });
    else if (typeof p.text === 'string' && !p.thought) texts.push(p.text);
  }
  if (!data.length) {
    const blocked = native.promptFeedback?.blockReason;
    const finish = native.candidates?.[0]?.finishReason;
    throw new Error(`Gemini generated no image${blocked ? ` (prompt blocked: ${blocked})` : finish ? ` (finish reason ${finish})` : ''}`);
  }
  const revised = texts.join('').trim();
  if (revised) data[0]!.revised_prompt = revised;
  return { response: { created: created(), data }, usage: geminiUsage(native.usageMetadata) };
}

/**
 * OpenAI image generation on Google's APIs, as new-api serves it: Imagen models (`imagen-*`) through `:predict`,
 * the image models of gemini.supported_imagine_models through generateContent asking for an image; any other
 * model is the client's 400. `url` builds the model's action URL (Gemini API or Vertex AI).
 */
export function googleImagesGenerations(url: (call: AdaptorCall, action: string) => BuiltRequest): ProviderEndpoint {
  return {
    build: (call) => url(call, isImagen(call.model) ? 'predict' : 'generateContent'),
    body: imagesBody,
    answer: (native) => (Array.isArray(native.predictions) ? imagenAnswer(native) : imagineAnswer(native)),
  };
}

function imagesBody(request: Json, model: string, settings: ProviderSettings): Json {
  if (isImagen(model)) return imagenBody(request);
  if (isImagineModel(model, settings)) return imagineBody(request, settings);
  throw new AdaptorRequestError(
    `model ${model} does not generate images on a Google channel: use an imagen model or one of gemini.supported_imagine_models`,
  );
}

/** The Gemini API's (type 24): {base}/{version}/models/{model}:predict or :generateContent. */
export const geminiImagesGenerations = googleImagesGenerations((call, action) => modelAction(call, action, false));
