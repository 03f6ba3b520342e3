import { UpstreamError } from './upstream.types.js';
import { idleTimeoutError } from './idle-sweep.js';

/**
 * Socket and undici failures as the client's few kinds: callers never see a transport library's error classes.
 * undici's errors are told apart by their codes, not their classes: undici is loaded only when a connection
 * limit asks for its pool, and Node's own fetch throws the same codes from its bundled copy.
 */
export function toUpstreamError(error: unknown): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const err = error as { code?: string; name?: string; message?: string } | undefined;
  const code = err?.code ?? '';
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return new UpstreamError('timeout', 'upstream did not answer in time (first byte timeout)');
  if (code === 'UND_ERR_BODY_TIMEOUT') return idleTimeoutError();
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new UpstreamError('connect', 'could not connect to upstream (connect timeout)');
  if (code === 'UND_ERR_ABORTED' || err?.name === 'AbortError' || code === 'ABORT_ERR') {
    return new UpstreamError('aborted', 'the request was aborted');
  }
  if (/^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code)) {
    return new UpstreamError('connect', `could not reach upstream (${code})`);
  }
  return new UpstreamError('connect', `upstream request failed: ${err?.message ?? String(error)}`);
}
