import { describe, expect, it } from 'vitest';
import type { RelayChannel } from '@gw/channel';
import type { OptionService } from '@gw/option';
import { UpstreamError } from '@gw/upstream';
import { RetryPolicy } from './retry-policy.js';
import { mapStatus, transportError, upstreamStatusError } from './upstream-error.js';

const channel = (statusCodeMapping: Record<string, string> = {}) => ({ statusCodeMapping }) as RelayChannel;

describe('upstream errors', () => {
  it('keeps the provider message, type and code, with the mapped status', () => {
    const error = upstreamStatusError('{"error":{"message":"slow down","type":"rate_limit","code":"rl"}}', 429, channel({ '429': '503' }));
    expect(error.httpStatus).toBe(503);
    expect(error.body()).toEqual({ error: { message: 'slow down', type: 'rate_limit', param: '', code: 'rl' } });
    expect(upstreamStatusError('<html>bad gateway</html>', 502, channel()).body().error).toMatchObject({
      message: '<html>bad gateway</html>',
      type: 'upstream_error',
    });
    expect(upstreamStatusError('', 500, channel()).message).toBe('upstream answered status 500');
  });

  it('never remaps 200 and ignores mappings to non-HTTP statuses', () => {
    expect(mapStatus({ '200': '500' }, 200)).toBe(200);
    expect(mapStatus({ '500': '999' }, 500)).toBe(500);
    expect(mapStatus({ '500': 'x' }, 500)).toBe(500);
  });

  it('turns transport failures into 502/504 errors', () => {
    expect(transportError(new UpstreamError('timeout', 't')).httpStatus).toBe(504);
    expect(transportError(new UpstreamError('connect', 'c')).httpStatus).toBe(502);
  });
});

describe('RetryPolicy', () => {
  const policy = (spec = '100-199,300-399,401-407,409-499,500-503,505-523,525-599') =>
    new RetryPolicy({ get: (key: string) => (key === 'AutomaticRetryStatusCodes' ? spec : 0) } as unknown as OptionService);

  it("follows new-api's defaults: 429 and 5xx retry, 400/408/504/524 never, 2xx never", () => {
    const p = policy();
    expect([429, 500, 502, 503, 505, 401].map((s) => p.shouldRetryStatus(s))).toEqual([true, true, true, true, true, true]);
    expect([400, 408, 504, 524, 200].map((s) => p.shouldRetryStatus(s))).toEqual([false, false, false, false, false]);
  });

  it('never retries 504/524 even when the option lists them, and always retries a status outside 100–599', () => {
    const p = policy('500-599');
    expect(p.shouldRetryStatus(504)).toBe(false);
    expect(p.shouldRetryStatus(524)).toBe(false);
    expect(p.shouldRetryStatus(700)).toBe(true);
  });
});
