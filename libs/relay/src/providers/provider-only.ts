import type { FormatCodec, Json } from './types.js';

/**
 * The inbound half of a format no client route speaks (Dify, Cohere): such a codec only talks to its provider,
 * so these are never called; they fail loudly if a route is ever wired to one by mistake.
 */
export function providerOnly(name: string): Pick<FormatCodec, 'requestToHub' | 'responseFromHub' | 'streamEncoder' | 'errorBody'> {
  const refuse = (): never => {
    throw new Error(`${name} is a provider format, not a client one`);
  };
  return {
    requestToHub: refuse,
    responseFromHub: refuse,
    streamEncoder: refuse,
    errorBody: (message: string) => ({ error: { message } }),
  };
}

/** The text of a hub message's content: a string, or the text parts of a parts array. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: Json) => (part?.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** Image URLs (http/https only) among a hub message's content parts. */
export function remoteImageUrls(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content
    .map((part: Json) =>
      part?.type === 'image_url' ? (typeof part.image_url === 'string' ? part.image_url : part.image_url?.url) : undefined,
    )
    .filter((url): url is string => typeof url === 'string' && /^https?:\/\//.test(url));
}
