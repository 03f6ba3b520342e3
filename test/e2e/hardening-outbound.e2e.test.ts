import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
