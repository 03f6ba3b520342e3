import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceAccountKey, testKeyPair } from '../fixtures/providers/vertex/index.js';
import type { ApiClient } from '../support/api-client.js';
import { type RelayFixture, startRelayFixture } from './relay-fixture.js';

/** Every way of writing a loopback, private, link-local or metadata address (threats S3, issue 22 item 5). */
const HOSTS = [
  '127.0.0.1',
  '127.1',
  '2130706433',
  '0x7f000001',
  '017700000001',
  '0x7f.1',
  '0177.0.0.1',
  '0.0.0.0',
  '0',
  'localhost',
  '[::1]',
  '[::]',
  '[::ffff:127.0.0.1]',
  '[::127.0.0.1]',
  '[::ffff:0:127.0.0.1]',
  '[64:ff9b::127.0.0.1]',
  '[64:ff9b:1::7f00:1]',
  '[2002:7f00:1::1]',
  '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
  '169.254.169.254',
  '2852039166',
  '[::ffff:169.254.169.254]',
  '[fe80::1]',
  '[fd00::1]',
  '10.0.0.1',
  '172.16.0.1',
  '192.168.0.1',
  '100.64.0.1',
  '198.18.0.1',
];

describe('hardening: every URL the gateway fetches for a user refuses every form of a private address', () => {
  let f: RelayFixture;
  let admin: ApiClient;
  let canary: Server;
  let port: number;
  let hits = 0;

  beforeAll(async () => {
    canary = createServer((_req, res) => {
      hits++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
    port = (canary.address() as AddressInfo).port;
    f = await startRelayFixture('sqlite');
    expect((await f.root.post('/api/user/', { username: 'obadmin', password: 'outbound-pass-1' })).body.success).toBe(true);
    admin = f.gw.client();
    const login = await admin.login('obadmin', 'outbound-pass-1');
    expect((await f.root.post('/api/user/manage', { id: login.body.data.id, action: 'promote' })).body.success).toBe(true);
  });
  afterAll(async () => {
    await f?.close();
    await new Promise<void>((resolve) => canary.close(() => resolve()));
  });

  it.each(HOSTS)('refuses %s as a webhook, an OIDC discovery URL and an admin channel base URL', async (host) => {
    const webhook = await f.user.client.put('/api/user/setting', { notify_type: 'webhook', webhook_url: `https://${host}:${port}/hook` });
    expect(webhook.body.success, webhook.text).toBe(false);
    const discovery = await f.root.post('/api/custom-oauth-provider/discovery', {
      well_known_url: `http://${host}:${port}/.well-known/openid-configuration`,
    });
    expect(discovery.body.success, discovery.text).toBe(false);
    const channel = await admin.post('/api/channel/', {
      mode: 'single',
      channel: { type: 1, name: `outbound-${host}`, key: 'sk-outbound', models: 'x', group: 'default', base_url: `http://${host}:${port}` },
    });
    expect(channel.body.success, channel.text).toBe(false);
    expect(hits).toBe(0);
  });

  describe('a Vertex AI service account token_uri (threats S5)', () => {
    /** A usable key (the token exchange signs with it before it posts), its token_uri pointing at `tokenUri`. */
    const privateKey = testKeyPair().privateKey;
    const vertex = (client: ApiClient, name: string, tokenUri: string) =>
      client.post('/api/channel/', {
        mode: 'single',
        channel: { type: 41, name, key: serviceAccountKey(privateKey, tokenUri), models: 'gemini-2.5-flash', group: 'default' },
      });
    const allowPrivate = (on: boolean) => f.setOption('AllowPrivateOutboundUrls', on);

    it.each(HOSTS)('refuses %s when an admin or root saves the key', async (host) => {
      for (const client of [admin, f.root]) {
        const saved = await vertex(client, `vertex-${host}`, `http://${host}:${port}/token`);
        expect(saved.body, saved.text).toMatchObject({
          success: false,
          message: expect.stringContaining('token_uri points to a private address'),
        });
      }
      expect(hits).toBe(0);
    });

    it("saves Google's own token endpoint, on create and on edit", async () => {
      const saved = await vertex(admin, 'vertex-google', 'https://oauth2.googleapis.com/token');
      expect(saved.body.success, saved.text).toBe(true);
      const id = saved.body.data.ids[0] as number;
      const key = serviceAccountKey(privateKey, 'https://oauth2.googleapis.com/token');
      expect((await admin.put('/api/channel/', { id, key })).body.success).toBe(true);
      // An edit that swaps the key file for one pointing inside is refused like a new channel.
      const inside = await admin.put('/api/channel/', { id, key: serviceAccountKey(privateKey, `http://127.0.0.1:${port}/token`) });
      expect(inside.body, inside.text).toMatchObject({ success: false, message: expect.stringContaining('token_uri') });
    });

    it('never posts to a stored private token_uri when the channel is tested, unless AllowPrivateOutboundUrls is on', async () => {
      // A key saved while the operator allowed private addresses (or before the check existed), then the option turned off.
      await allowPrivate(true);
      const saved = await vertex(admin, 'vertex-stored', `http://127.0.0.1:${port}/token`);
      expect(saved.body.success, saved.text).toBe(true);
      const id = saved.body.data.ids[0] as number;
      await allowPrivate(false);
      try {
        const before = hits;
        const refused = (await f.root.get(`/api/channel/test/${id}`)).body;
        expect(refused).toMatchObject({
          success: false,
          message: expect.stringContaining('token_uri URL points to a private or reserved address'),
        });
        expect(hits).toBe(before);
        // The same channel reaches its token_uri once the operator allows private addresses: the use-time check is what refused it.
        await allowPrivate(true);
        expect((await f.root.get(`/api/channel/test/${id}`)).body.success).toBe(false);
        expect(hits).toBe(before + 1);
      } finally {
        await allowPrivate(false);
      }
    });
  });
});
