import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeReleaseFeed, releaseAnswer, startFakeReleaseFeed } from '../fake-upstream/fake-release-feed.js';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { ROOT, setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

// The Other settings tab's "check for updates" (spec 000): root asks the gateway, which reads the release feed
// (UPDATE_CHECK_URL, GitHub's latest-release JSON) through the outbound guard. The feed here is on loopback,
// so the gateway reads it only once AllowPrivateOutboundUrls is on.
describe.each(testDatabases())('update check (GET /api/status/update) on %s', (kind) => {
  let feed: FakeReleaseFeed;
  let gw: TestGateway;
  let root: ApiClient;

  const check = () => root.get('/api/status/update');
  const allowPrivate = async (value: boolean) =>
    expect((await root.put('/api/option/', { key: 'AllowPrivateOutboundUrls', value })).body.success).toBe(true);

  /** A refusal is the console's usual failure: HTTP 200, success:false, the reason in the message. */
  async function expectFailure(pattern: RegExp) {
    const res = await check();
    expect(res.status).toBe(200);
    expect(res.body.success, res.text).toBe(false);
    expect(res.body.message).toMatch(/^release feed /);
    expect(res.body.message).toMatch(pattern);
  }

  beforeAll(async () => {
    feed = await startFakeReleaseFeed();
    gw = await startTestGateway(kind, { VERSION: 'v1.2.0', UPDATE_CHECK_URL: feed.url });
    root = await setupRoot(gw);
  });

  afterAll(async () => {
    await gw?.close();
    await feed?.close();
  });

  it('answers root only', async () => {
    expect((await gw.client().get('/api/status/update')).status).toBe(401);
    for (const [username, promote] of [
      ['update-user', false],
      ['update-admin', true],
    ] as const) {
      const created = await root.post('/api/user/', { username, password: `${username}-pass-1` });
      expect(created.body.success, created.text).toBe(true);
      const client = gw.client();
      const login = await client.login(username, `${username}-pass-1`);
      if (promote) expect((await root.post('/api/user/manage', { id: login.body.data.id, action: 'promote' })).body.success).toBe(true);
      const res = await client.get('/api/status/update');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: false, message: expect.stringMatching(/permission/) });
    }
    expect(feed.requests).toHaveLength(0);
  });

  it('does not call a feed on a private address unless AllowPrivateOutboundUrls is on', async () => {
    await allowPrivate(false);
    await expectFailure(/private or reserved address/);
    expect(feed.requests).toHaveLength(0);
    await allowPrivate(true);
  });

  it('reports an unreachable feed, an error status and an answer that is no release, and caches none of them', async () => {
    feed.answer = 'drop';
    await expectFailure(/request failed/);
    feed.answer = { status: 503, body: '{"message":"unavailable"}' };
    await expectFailure(/HTTP 503/);
    feed.answer = { status: 200, body: '<html>not json' };
    await expectFailure(/not valid JSON/);
    feed.answer = { status: 200, body: '[{"tag_name":"v9.9.9"}]' };
    await expectFailure(/not a release object/);
    feed.answer = releaseAnswer('nightly');
    await expectFailure(/no valid version tag/);
    feed.answer = { status: 200, body: JSON.stringify({ tag_name: 'v9.9.9', body: 'x'.repeat(600 * 1024) }) };
    await expectFailure(/too large/);
    expect(feed.requests).toHaveLength(6);
  });

  it('reports a newer release with its name, notes and page, asking as a named client', async () => {
    feed.answer = releaseAnswer('v1.10.0');
    const res = await check();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: '',
      data: {
        current: 'v1.2.0',
        latest: 'v1.10.0',
        newer: true,
        name: 'Gateway v1.10.0',
        notes: "## What's new in v1.10.0\n\n- faster relays\n- <b>bold</b> claims",
        url: 'https://github.com/acme/gateway/releases/tag/v1.10.0',
        published_at: '2025-06-01T08:00:00Z',
      },
    });
    expect(feed.requests.at(-1)!['user-agent']).toBe('ai-gateway/v1.2.0');
  });

  it('serves a success from its cache for a few minutes, so the button cannot hammer the feed', async () => {
    const calls = feed.requests.length;
    feed.answer = releaseAnswer('v9.0.0');
    const answers = await Promise.all([check(), check(), check()]);
    for (const res of answers) expect(res.body.data).toMatchObject({ latest: 'v1.10.0', newer: true });
    expect(feed.requests).toHaveLength(calls);
  });

  it('says the running version is the latest when the tags match, v prefix or not, and drops a link that is no web page', async () => {
    const same = await startTestGateway(kind, { VERSION: '1.3.0', UPDATE_CHECK_URL: feed.url }, gw.db);
    try {
      feed.answer = releaseAnswer('v1.3.0', { name: null, html_url: 'javascript:alert(1)', published_at: null });
      const sameRoot = same.client();
      expect((await sameRoot.login(ROOT.username, ROOT.password)).body.success).toBe(true);
      const res = await sameRoot.get('/api/status/update');
      expect(res.body).toEqual({
        success: true,
        message: '',
        data: {
          current: '1.3.0',
          latest: 'v1.3.0',
          newer: false,
          name: 'v1.3.0',
          notes: "## What's new in v1.3.0\n\n- faster relays\n- <b>bold</b> claims",
          url: '',
          published_at: '',
        },
      });
    } finally {
      await same.close();
    }
  });

  it('without UPDATE_CHECK_URL (the default) says no feed is set and calls nothing', async () => {
    const calls = feed.requests.length;
    const unset = await startTestGateway(kind, {}, gw.db);
    try {
      const unsetRoot = unset.client();
      expect((await unsetRoot.login(ROOT.username, ROOT.password)).body.success).toBe(true);
      const res = await unsetRoot.get('/api/status/update');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: false, message: expect.stringContaining('UPDATE_CHECK_URL') });
      expect(feed.requests).toHaveLength(calls);
    } finally {
      await unset.close();
    }
  });
});
