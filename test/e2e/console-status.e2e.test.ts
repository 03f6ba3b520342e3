import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

// new-api answers every console call with HTTP 200 and carries the outcome in the envelope; Nest's
// default for POST is 201. One interceptor turns it back for every console route (issue 13 §5).
describe('console POST routes answer 200', () => {
  let gw: TestGateway;
  let root: ApiClient;

  beforeAll(async () => {
    gw = await startTestGateway('sqlite');
    root = await setupRoot(gw);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('creates a channel, tags it, fixes abilities and deletes a batch with 200', async () => {
    const created = await root.post('/api/channel/', {
      mode: 'single',
      channel: { type: 1, name: 'status', key: 'sk-status', models: 'gpt-4o' },
    });
    expect(created.status).toBe(200);
    expect(created.body.success).toBe(true);
    const id = created.body.data.ids[0] as number;

    const tagged = await root.post('/api/channel/batch/tag', { ids: [id], tag: 'status-tag' });
    expect(tagged.status).toBe(200);
    expect(tagged.body).toMatchObject({ success: true, data: 1 });

    for (const path of ['/api/channel/tag/disabled', '/api/channel/tag/enabled']) {
      const res = await root.post(path, { tag: 'status-tag' });
      expect(res.status, path).toBe(200);
      expect(res.body.success, path).toBe(true);
    }
    expect((await root.post('/api/channel/fix')).status).toBe(200);
    const removed = await root.post('/api/channel/batch', { ids: [id] });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ success: true, data: 1 });
  });

  it('keeps 200 for rule violations and option resets', async () => {
    const refused = await root.post('/api/channel/batch/tag', { ids: 'nope' });
    expect(refused.status).toBe(200);
    expect(refused.body.success).toBe(false);
    expect((await root.post('/api/option/rest_model_ratio')).status).toBe(200);
  });
});
