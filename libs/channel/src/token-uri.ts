import { splitKeys } from './multi-key.js';

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The JSON values a key field holds: one (possibly pretty-printed) key file, a JSON array of them, or one per line. */
function keyValues(key: string): unknown[] {
  const whole = parsed(key.trim());
  if (Array.isArray(whole)) return whole.map((item) => (typeof item === 'string' ? parsed(item) : item));
  if (whole !== undefined) return [whole];
  return splitKeys(key).map(parsed);
}

/**
 * The distinct `token_uri`s of the Google service-account key files in a channel's key field (Vertex AI):
 * where the relay posts a signed assertion for an access token. Only non-empty strings: the relay reads
 * anything else as Google's default endpoint. Keys that are not JSON objects (most channel types) have none.
 */
export function tokenUrisOf(key: string): string[] {
  const uris = new Set<string>();
  for (const value of keyValues(key)) {
    const uri = (value as { token_uri?: unknown } | null)?.token_uri;
    if (typeof uri === 'string' && uri.trim()) uris.add(uri.trim());
  }
  return [...uris];
}
