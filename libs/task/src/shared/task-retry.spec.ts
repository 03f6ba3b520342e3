import { describe, expect, it } from 'vitest';
import { retriesTaskFailure } from './task-retry.js';

describe('retriesTaskFailure (new-api shouldRetryTaskRelay)', () => {
  it('retries rate limits, redirects, server errors and refused credentials', () => {
    for (const status of [429, 307, 500, 502, 503, 401, 403, 404, 301, 422]) expect(retriesTaskFailure(status), String(status)).toBe(true);
  });

  it('never retries a bad request, a client timeout, a gateway timeout or a success status', () => {
    for (const status of [400, 408, 504, 524, 200, 201]) expect(retriesTaskFailure(status), String(status)).toBe(false);
  });
});
