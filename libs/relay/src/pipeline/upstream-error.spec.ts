import { type RelayChannel, redactChannelText } from '@gw/channel';
import { describe, expect, it } from 'vitest';
import type { OptionService } from '@gw/option';
import { UpstreamError } from '@gw/upstream';
import { RetryPolicy } from './retry-policy.js';
import { mapStatus, promptBlockedFailure, redactingStream, transportError, upstreamStatusError } from './upstream-error.js';

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

  it("makes a refused prompt new-api's 400 prompt_blocked, status_code_mapping applied, retried only as 400 is", () => {
    const retried: number[] = [];
    const failure = promptBlockedFailure('request blocked by Gemini API: SAFETY', channel(), (status) => {
      retried.push(status);
      return false;
    });
    expect(failure.error.httpStatus).toBe(400);
    expect(failure.error.body()).toEqual({
      error: { message: 'request blocked by Gemini API: SAFETY', type: 'prompt_blocked', param: '', code: 'prompt_blocked' },
    });
    expect(failure).toMatchObject({ retryable: false, channelFault: { status: 400 } });
    expect(retried).toEqual([400]);
    expect(promptBlockedFailure('blocked', channel({ '400': '422' }), () => false).error.httpStatus).toBe(422);
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

describe('upstream errors never carry the channel key', () => {
  const keyed = (statusCodeMapping: Record<string, string> = {}) =>
    ({
      statusCodeMapping,
      key: 'sk-live-first-0123456789abcdef\nsk-live-second-fedcba9876543210',
      keys: ['sk-live-first-0123456789abcdef', 'sk-live-second-fedcba9876543210'],
      upstream: { key: 'sk-live-second-fedcba9876543210' },
    }) as unknown as RelayChannel;

  it('redacts every key of the channel, whole or partial', () => {
    const text = JSON.stringify({
      error: { message: 'Incorrect API key provided: sk-live-second-fedcba9876543210 (sk-live-first-0123****cdef)', code: 'x' },
    });
    const error = upstreamStatusError(text, 429, keyed());
    expect(error.message).not.toMatch(/fedcba98|live-fir|01234567/);
    expect(error.message).toContain('Incorrect API key provided: ***');
  });

  it("reports an upstream 401/403 as the gateway's channel problem, unless the channel maps the status", () => {
    for (const status of [401, 403]) {
      const error = upstreamStatusError(
        '{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}',
        status,
        keyed(),
      );
      expect(error.httpStatus).toBe(500);
      expect(error.body().error).toMatchObject({ type: 'new_api_error', code: 'channel:invalid_key' });
      expect(error.message).toContain(`upstream status ${status}`);
    }
    expect(upstreamStatusError('{}', 401, keyed({ '401': '503' })).httpStatus).toBe(503);
  });

  it('redacts a key from a transport failure (a URL with ?key=)', () => {
    const error = transportError(new UpstreamError('connect', 'GET /v1?key=sk-live-first-0123456789abcdef failed'), keyed());
    expect(error.message).not.toContain('0123456789');
  });

  it('redacts the channel key from every stream output (errors and ordinary content, split across outputs), leaving clean bytes as they are', () => {
    const key = 'sk-proj-STREAMkey0123456789abcdef';
    const content = `data: {"choices":[{"delta":{"content":"the key is ${key}, done"}}]}\n\n`;
    const cut = content.indexOf(key) + 11;
    const outputs: (string | Buffer)[] = [
      Buffer.from(`data: {"error":{"message":"Incorrect API key provided: ${key}"}}\n\n`),
      Buffer.from('data: {"choices":[{"delta":{"content":"hi"}}]}\n\n'),
      content.slice(0, cut),
      Buffer.from(content.slice(cut)),
    ];
    const stream = redactingStream({ push: () => outputs.shift()!, end: () => '' }, {
      key,
      statusCodeMapping: {},
    } as unknown as RelayChannel);
    const redacted = String(stream.push(Buffer.alloc(0)));
    expect(redacted).toContain('Incorrect API key provided: ***');
    expect(redacted).not.toContain('STREAMkey');
    const plain = outputs[0]!;
    expect(stream.push(Buffer.alloc(0))).toBe(plain);
    const split = String(stream.push(Buffer.alloc(0))) + String(stream.push(Buffer.alloc(0))) + String(stream.end());
    expect(split).toBe('data: {"choices":[{"delta":{"content":"the key is ***, done"}}]}\n\n');
  });

  it('redacts a whole answer and returns a clean one unchanged', () => {
    const key = 'sk-live-ANSWERkey0123456789abcdef';
    const channel = { key: 'other-key-0000|sk-x', keys: ['other-key-0000', key] } as unknown as RelayChannel;
    const answer = JSON.stringify({ choices: [{ message: { content: `echo ${key}` } }] });
    expect(redactChannelText(answer, channel)).toBe(JSON.stringify({ choices: [{ message: { content: 'echo ***' } }] }));
    const clean = JSON.stringify({ choices: [{ message: { content: 'hello' } }] });
    expect(redactChannelText(clean, channel)).toBe(clean);
  });
});
