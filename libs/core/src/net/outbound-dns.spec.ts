import { afterEach, describe, expect, it, vi } from 'vitest';

// A resolver that never answers.
vi.mock('node:dns/promises', () => ({ lookup: () => new Promise(() => undefined) }));

const { assertOutboundUrl, OUTBOUND_TIMEOUT_MS } = await import('./outbound.js');

describe('outbound URL guard with a hanging resolver', () => {
  afterEach(() => vi.useRealTimers());

  it('gives up resolving at the request timeout', async () => {
    vi.useFakeTimers();
    const pending = assertOutboundUrl('https://hooks.example.com/x');
    const outcome = expect(pending).rejects.toThrow('URL host cannot be resolved');
    await vi.advanceTimersByTimeAsync(OUTBOUND_TIMEOUT_MS + 1);
    await outcome;
  });
});
