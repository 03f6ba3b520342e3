import { AdaptorRequestError, type HubRequest, type Json } from '../types.js';

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What an OpenAI client asked of Gemini itself through `extra_body.google` (snake_case, as Google's OpenAI API takes it). */
export interface GoogleExtraBody {
  /** The generationConfig.thinkingConfig it sets, in place of the thinking adapter's; undefined when it sets none. */
  thinking?: Json;
  /** generationConfig.imageConfig. */
  imageConfig?: Json;
  /** True when the request carried `extra_body.google` at all: the thinking adapter then stays out (as new-api). */
  present: boolean;
}

/** A camelCase name where Google's OpenAI-compatible API takes the snake_case one: refused with the right name. */
function refuseCamel(where: Json, camel: string, snake: string, path: string): void {
  if (camel in where) throw new AdaptorRequestError(`${path}.${camel} is not supported, use ${path}.${snake} instead`);
}

/**
 * new-api's reading of `extra_body.google` on an OpenAI chat request bound for Gemini (Google documents it for
 * its OpenAI-compatible endpoint): `thinking_config` {thinking_budget (integer; > 0 also turns thoughts on),
 * include_thoughts, thinking_level} and `image_config` {aspect_ratio, image_size}. A wrong type or a camelCase
 * name is the client's 400. With a `-nothinking` model the thinking part is ignored, as new-api ignores it.
 */
export function googleExtraBody(hub: HubRequest, model: string): GoogleExtraBody {
  const extra = hub.extra_body;
  const google = isObject(extra) ? extra.google : undefined;
  if (!isObject(google)) return { present: false };
  const out: GoogleExtraBody = { present: true };
  if (!model.endsWith('-nothinking')) {
    refuseCamel(google, 'thinkingConfig', 'thinking_config', 'extra_body.google');
    const config = google.thinking_config;
    if (isObject(config)) {
      const path = 'extra_body.google.thinking_config';
      refuseCamel(config, 'thinkingBudget', 'thinking_budget', path);
      const thinking: Json = {};
      if (config.thinking_budget !== undefined) {
        if (typeof config.thinking_budget !== 'number' || !Number.isFinite(config.thinking_budget))
          throw new AdaptorRequestError(`${path}.thinking_budget must be an integer`);
        thinking.thinkingBudget = Math.trunc(config.thinking_budget);
        thinking.includeThoughts = thinking.thinkingBudget > 0;
      }
      if (config.include_thoughts !== undefined) {
        if (typeof config.include_thoughts !== 'boolean') throw new AdaptorRequestError(`${path}.include_thoughts must be a boolean`);
        thinking.includeThoughts = config.include_thoughts;
      }
      if (config.thinking_level !== undefined) {
        if (typeof config.thinking_level !== 'string') throw new AdaptorRequestError(`${path}.thinking_level must be a string`);
        thinking.thinkingLevel = config.thinking_level;
      }
      if (Object.keys(thinking).length) out.thinking = thinking;
    }
  }
  refuseCamel(google, 'imageConfig', 'image_config', 'extra_body.google');
  const image = google.image_config;
  if (isObject(image)) {
    const path = 'extra_body.google.image_config';
    refuseCamel(image, 'aspectRatio', 'aspect_ratio', path);
    refuseCamel(image, 'imageSize', 'image_size', path);
    const imageConfig: Json = {};
    if (image.aspect_ratio !== undefined) imageConfig.aspectRatio = image.aspect_ratio;
    if (image.image_size !== undefined) imageConfig.imageSize = image.image_size;
    if (Object.keys(imageConfig).length) out.imageConfig = imageConfig;
  }
  return out;
}
