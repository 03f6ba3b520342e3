/**
 * The 5xx answers that are the API's contract rather than a failure, as in new-api: 503 when no channel
 * serves the model for the caller's group (`model_not_found`; Anthropic's shape has no code, only the
 * message), 501 `api_not_implemented` for the OpenAI routes new-api does not relay either. The fuzz and
 * authorization suites count every other 5xx as a bug.
 */
export function isContractual5xx(status: number, body: unknown): boolean {
  const error = (body as { error?: { code?: unknown; message?: unknown } })?.error;
  if (status === 501) return error?.code === 'api_not_implemented';
  if (status !== 503) return false;
  return error?.code === 'model_not_found' || (typeof error?.message === 'string' && error.message.startsWith('no available channel'));
}
