import { RelayError } from './relay-error.js';
import type { Attempt, ForwardInput } from './upstream-call.js';

/**
 * Waits, before the first byte of an answer is written, for a reserve that runs beside the upstream call
 * (docs/billing.md). undefined: go on; otherwise the attempt's failure (never retried, never the channel's
 * fault: the pipeline answers with the reserve's own refusal or error).
 */
export async function heldBack(input: ForwardInput, upstreamModel: string): Promise<Attempt | undefined> {
  if (!input.holdAnswer || (await input.holdAnswer())) return undefined;
  return {
    ok: false,
    upstreamModel,
    localCount: false,
    frtMs: 0,
    retryable: false,
    error: new RelayError('the quota reservation did not commit', 503, 'reservation_failed'),
    unlogged: true,
  };
}
