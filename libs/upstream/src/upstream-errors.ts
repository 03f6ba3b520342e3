import { errors } from 'undici';
import { UpstreamError } from './upstream.types.js';

/** undici's failures as the client's few kinds: callers never see a transport library's error classes. */
export function toUpstreamError(error: unknown): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const err = error as { code?: string; name?: string; message?: string } | undefined;
  if (error instanceof errors.HeadersTimeoutError)
    return new UpstreamError('timeout', 'upstream did not answer in time (first byte timeout)');
  if (error instanceof errors.BodyTimeoutError) return new UpstreamError('timeout', 'upstream stopped sending (idle timeout)');
  if (error instanceof errors.ConnectTimeoutError) return new UpstreamError('connect', 'could not connect to upstream (connect timeout)');
  if (error instanceof errors.RequestAbortedError || err?.name === 'AbortError' || err?.code === 'ABORT_ERR') {
    return new UpstreamError('aborted', 'the request was aborted');
  }
  const code = err?.code ?? '';
  if (/^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code)) {
    return new UpstreamError('connect', `could not reach upstream (${code})`);
  }
  return new UpstreamError('connect', `upstream request failed: ${err?.message ?? String(error)}`);
}
