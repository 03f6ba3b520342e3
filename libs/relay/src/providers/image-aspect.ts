/**
 * OpenAI image sizes as the aspect ratios that providers without pixel sizes take instead (new-api's mapping for
 * Replicate's FLUX models and Google's Imagen).
 */
const ASPECT_OF_SIZE: Readonly<Record<string, string>> = {
  '1024x1024': '1:1',
  '512x512': '1:1',
  '256x256': '1:1',
  '1792x1024': '16:9',
  '1024x1792': '9:16',
  '1536x1024': '3:2',
  '1024x1536': '2:3',
};

/** The aspect ratio of a known OpenAI size, else undefined (own keys only: a client's `__proto__` is no size). */
export function aspectOfSize(size: unknown): string | undefined {
  return typeof size === 'string' && Object.hasOwn(ASPECT_OF_SIZE, size) ? ASPECT_OF_SIZE[size] : undefined;
}
