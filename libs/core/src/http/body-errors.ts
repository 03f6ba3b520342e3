import { anthropicError, isAnthropicPath, isRelayPath, openAiError, withRequestId } from './relay-paths.js';

/**
 * A request body that could not be read, as body-parser reports it (`type` and `status` on the error),
 * turned into the status and message every edge answers with: 413 over the size limit, otherwise a 4xx.
 * Undefined for anything that is not a body error.
 */
export function describeBodyError(error: unknown): { status: number; message: string } | undefined {
  const err = error as { type?: string; status?: number } | undefined;
  if (!err?.type || !err.status) return undefined;
  const status = err.type === 'entity.too.large' ? 413 : err.status >= 400 && err.status < 500 ? err.status : 400;
  const message =
    status === 413
      ? 'request body is too large'
      : err.type === 'entity.parse.failed'
        ? 'request body is not valid JSON'
        : err.type === 'entity.too.deep'
          ? 'request body is nested too deeply'
          : 'request body could not be read';
  return { status, message };
}

/**
 * The whole answer to a body error on `path`, in the caller's own error shape: the envelope on the
 * console API, OpenAI's (or on /v1/messages Anthropic's) error body on the relay, whose message ends
 * with the request id (new-api's body checks append it).
 */
export function bodyErrorAnswer(error: unknown, path: string, requestId?: string): { status: number; body: unknown } | undefined {
  const described = describeBodyError(error);
  if (!described) return undefined;
  const { status } = described;
  if (!isRelayPath(path)) return { status, body: { success: false, message: described.message } };
  const message = withRequestId(described.message, requestId);
  const body = isAnthropicPath(path)
    ? anthropicError(message, 'invalid_request_error')
    : openAiError(message, 'invalid_request_error', 'invalid_request');
  return { status, body };
}
