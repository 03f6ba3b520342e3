import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

/** 2^31: one past PostgreSQL's INTEGER, where an unchecked id used to fail the query with a 500. */
const BIG = 2 ** 31;

/** Found by the fuzz suite on PostgreSQL: ids past the INTEGER range in paths, bodies and queries. */
const CALLS: [method: string, path: string, body?: unknown][] = [
  ['PUT', '/api/user/', { id: BIG, username: 'xx', display_name: 'x', password: '', group: 'default', quota: 0 }],
  ['POST', '/api/user/manage', { id: BIG, action: 'disable' }],
  ['PUT', '/api/redemption/', { id: BIG, name: 'x', quota: 1 }],
  ['PUT', '/api/token/', { id: BIG, name: 'x', remain_quota: 1, expired_time: -1 }],
  ['POST', '/api/token/batch', { ids: [BIG] }],
  ['POST', '/api/token/batch/keys', { ids: [BIG] }],
  ['POST', '/api/channel/batch', { ids: [BIG] }],
  ['POST', '/api/channel/batch/tag', { ids: [BIG], tag: 'x' }],
  ['GET', `/api/log/?p=1&channel=${BIG}&user_id=${BIG}&token_id=${BIG}`],
  ['GET', `/api/user/${BIG}`],
  ['DELETE', `/api/user/${BIG}`],
  ['GET', `/api/user/${BIG}/oauth/bindings`],
  ['DELETE', `/api/user/${BIG}/2fa`],
  ['DELETE', `/api/user/${BIG}/reset_passkey`],
  ['GET', `/api/custom-oauth-provider/${BIG}`],
  ['DELETE', `/api/custom-oauth-provider/${BIG}`],
];

describe.each(testDatabases())('hardening: out-of-range ids are bad input, not a server error, on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
  });
  afterAll(() => gw?.close());

  it.each(CALLS)('%s %s', async (method, path, body) => {
    const res = await root.request<any>(method, path, body);
    // Refused, or an empty answer (nothing has that id): either way the envelope, never a 500.
    expect(res.status, res.text).toBe(200);
    expect(typeof res.body.success, res.text).toBe('boolean');
    if (res.body.success === false) expect(res.body.message).not.toBe('internal server error');
  });
});
