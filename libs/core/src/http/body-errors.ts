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
    status === 413 ? 'request body is too large' : err.type === 'entity.parse.failed' ? 'request body is not valid JSON' : 'request body could not be read';
  return { status, message };
}
