/** Paths served by the relay edge: their errors use OpenAI's (or Anthropic's) error body, not the envelope. */
const RELAY_PREFIXES = ['/v1/', '/v1beta/', '/pg/', '/mj/', '/suno/', '/dashboard/', '/kling/', '/jimeng/'];

export function isRelayPath(path: string): boolean {
  return path === '/v1' || RELAY_PREFIXES.some((prefix) => path.startsWith(prefix));
}

export function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

export function isAnthropicPath(path: string): boolean {
  return path.startsWith('/v1/messages');
}

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string; code: string | number | null };
}

export function openAiError(message: string, type: string, code: string | number | null = null): OpenAiErrorBody {
  return { error: { message, type, param: '', code } };
}

export function anthropicError(message: string, type: string) {
  return { type: 'error', error: { type, message } };
}
