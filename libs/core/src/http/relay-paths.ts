import type { ServerResponse } from 'node:http';

/** The header carrying the id of every relay request (new-api's X-Oneapi-Request-Id). */
export const REQUEST_ID_HEADER = 'X-Oneapi-Request-Id';

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

/**
 * new-api's relay error message: the text, then ` (request id: <id>)` with the id of the request's
 * X-Oneapi-Request-Id header, so a user's report leads to the logs. Only relay error answers carry it:
 * the relay's own refusals and failures, its token authentication and its body checks; never the
 * console envelope, nor a message that is not an error. Without an id the message is left as is.
 */
export function withRequestId(message: string, requestId: string | undefined): string {
  return requestId ? `${message} (request id: ${requestId})` : message;
}

/** The id a response was given in X-Oneapi-Request-Id (by the relay's front door or the request logger). */
export function requestIdHeaderOf(res: Pick<ServerResponse, 'getHeader'>): string | undefined {
  const id = res.getHeader(REQUEST_ID_HEADER);
  return typeof id === 'string' && id ? id : undefined;
}

/**
 * True for an error whose message new-api suffixes with the request id wherever it is answered: the
 * refusals of its token authentication and routing middleware (abortWithOpenAiMessage), which also
 * guard routes whose own errors carry no id (model lists, billing, task families).
 */
export function carriesRequestId(error: unknown): boolean {
  return (error as { appendRequestId?: unknown } | null | undefined)?.appendRequestId === true;
}
