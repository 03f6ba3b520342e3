import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// new-api: a slave node with FRONTEND_BASE_URL serves no console; every page request goes there with a 301
// (path and query kept), while the API and the relay answer as usual. The master ignores the variable.
describe('FRONTEND_BASE_URL', () => {
  let slave: TestGateway;
  let master: TestGateway;

  beforeAll(async () => {
    slave = await startTestGateway('sqlite', { NODE_TYPE: 'slave', FRONTEND_BASE_URL: 'https://console.example.com/' });
    master = await startTestGateway('sqlite', { FRONTEND_BASE_URL: 'https://console.example.com' });
  });
  afterAll(async () => {
    await Promise.all([slave?.close(), master?.close()]);
  });

  it('sends console pages on a slave to the frontend, path and query kept', async () => {
    for (const path of ['/', '/token?p=2', '/console/log', '/remotes/admin/mf-manifest.json']) {
      const res = await fetch(`${slave.url}${path}`, { redirect: 'manual' });
      expect(res.status, path).toBe(301);
      expect(res.headers.get('location'), path).toBe(`https://console.example.com${path}`);
    }
  });

  it('still answers the API and the relay on that slave', async () => {
    const status = await fetch(`${slave.url}/api/status`, { redirect: 'manual' });
    expect(status.status).toBe(200);
    expect((await status.json()).success).toBe(true);
    expect((await fetch(`${slave.url}/v1/models`, { redirect: 'manual' })).status).toBe(401);
  });

  it('is ignored on the master, which serves the console itself', async () => {
    const res = await fetch(`${master.url}/token`, { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/html/);
  });
});
