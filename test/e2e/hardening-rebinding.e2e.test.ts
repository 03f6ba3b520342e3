import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { scriptResolver } from './rebind-resolver.js';
import { CHAT, INSTRUCT, type RelayFixture, startRelayFixture } from './relay-fixture.js';

/**
 * Threats S5 with DNS rebinding: a channel base URL an admin saved while its name resolved to a public address
 * must stay public when the relay connects, even after the name is pointed at loopback; a base URL root saved on
 * a private address keeps working. The names under `.rebind.test` are answered by a scripted resolver put in
 * place of Node's own (both the lookup the save-time check makes and the one a connection makes), in this test
 * process only (rebind-resolver.ts): the gateway has no hook of its own for it.
 */
const PUBLIC = '93.184.216.34';
/** Models the fixture prices (an unpriced model would be refused before any channel is picked). */
const MODEL = CHAT;
const ROOT_MODEL = INSTRUCT;
const KEY = 'sk-rebind-channel-key-0123456789';

let phase: 'public' | 'loopback' = 'public';
const answerFor = (host: string): LookupAddress[] | undefined => {
  if (!host.endsWith('.rebind.test')) return undefined;
  // A name that does not resolve (yet).
  if (host.startsWith('gone.')) return [];
  // A root-saved service name always answers loopback; the admin's name flips.
  if (host.startsWith('svc.')) return [{ address: '127.0.0.1', family: 4 }];
  return [{ address: phase === 'public' ? PUBLIC : '127.0.0.1', family: 4 }];
};

describe.each(testDatabases())(
  'a channel base URL checked public when saved stays public when the relay connects (threats S5) on %s',
  (kind) => {
    let f: RelayFixture;
    let admin: ApiClient;
    let canary: Server;
    let canaryPort: number;
    let hits = 0;
    let adminChannel: number;
    let rootChannel: number;
    let tokenKey: string;
    let restoreResolver: (() => void) | undefined;

    const chat = (model: string) =>
      fetch(`${f.gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokenKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      });
    const flagOf = async (id: number) => {
      const row = (await f.ds.getRepository('channels').findOneBy({ id })) as { baseUrlPublic: number | null };
      return row.baseUrlPublic === null ? null : Number(row.baseUrlPublic);
    };

    beforeAll(async () => {
      restoreResolver = scriptResolver(answerFor);
      canary = createServer((_req, res) => {
        hits++;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ id: 'inside', choices: [{ message: { role: 'assistant', content: 'intranet answer' } }], data: [] }));
      });
      await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
      canaryPort = (canary.address() as AddressInfo).port;
      f = await startRelayFixture(kind);
      expect((await f.root.post('/api/user/', { username: 'rebindadmin', password: 'rebind-pass-1' })).body.success).toBe(true);
      admin = f.gw.client();
      const login = await admin.login('rebindadmin', 'rebind-pass-1');
      expect((await f.root.post('/api/user/manage', { id: login.body.data.id, action: 'promote' })).body.success).toBe(true);
      tokenKey = (await f.token()).key;
    });
    afterAll(async () => {
      await f?.close();
      await new Promise<void>((resolve) => canary?.close(() => resolve()));
      restoreResolver?.();
    });

    it('records, when the base URL is saved, whether it must stay public; the request cannot set it', async () => {
      phase = 'public';
      const saved = await admin.post('/api/channel/', {
        mode: 'single',
        channel: {
          type: 1,
          name: 'rebind-admin',
          key: KEY,
          models: MODEL,
          group: 'default',
          base_url: `http://api.rebind.test:${canaryPort}`,
          // Not a field of the form: dropped.
          base_url_public: 0,
        },
      });
      expect(saved.body.success, saved.text).toBe(true);
      adminChannel = saved.body.data.ids[0] as number;
      expect(await flagOf(adminChannel)).toBe(1);

      // Root may save a private address (a service on this host or in the cluster): recorded as not public.
      const rooted = await f.root.post('/api/channel/', {
        mode: 'single',
        channel: {
          type: 1,
          name: 'rebind-root',
          key: 'sk-root-private-0123456789',
          models: ROOT_MODEL,
          group: 'default',
          base_url: f.up.url,
        },
      });
      expect(rooted.body.success, rooted.text).toBe(true);
      rootChannel = rooted.body.data.ids[0] as number;
      expect(await flagOf(rootChannel)).toBe(0);

      // An admin still cannot save a private one; root saving a public name records it as public.
      const refused = await admin.put('/api/channel/', { id: adminChannel, base_url: `http://svc.rebind.test:${canaryPort}` });
      expect(refused.body.success, refused.text).toBe(false);
      expect(await flagOf(adminChannel)).toBe(1);
      const upPort = new URL(f.up.url).port;
      const byRoot = await f.root.put('/api/channel/', { id: rootChannel, base_url: `http://public.rebind.test:${upPort}` });
      expect(byRoot.body.success, byRoot.text).toBe(true);
      expect(await flagOf(rootChannel)).toBe(1);
      // Root pointing it at a service name that answers loopback: recorded as not public, and it keeps working below.
      const svc = await f.root.put('/api/channel/', { id: rootChannel, base_url: `http://svc.rebind.test:${upPort}` });
      expect(svc.body.success, svc.text).toBe(true);
      expect(await flagOf(rootChannel)).toBe(0);

      // A name that does not resolve yet: an admin's must stay public once it does, root's may turn out private.
      const pending = async (client: ApiClient) => {
        const res = await client.post('/api/channel/', {
          mode: 'single',
          channel: { type: 1, name: 'rebind-pending', key: KEY, models: MODEL, group: 'default', base_url: 'http://gone.rebind.test' },
        });
        expect(res.body.success, res.text).toBe(true);
        return flagOf(res.body.data.ids[0] as number);
      };
      expect(await pending(admin)).toBe(1);
      expect(await pending(f.root)).toBe(0);
      // An empty base URL (the type's default) is not the admin's host: not recorded as public.
      const empty = await admin.post('/api/channel/', {
        mode: 'single',
        channel: { type: 1, name: 'rebind-default', key: KEY, models: 'rebind-unused', group: 'default' },
      });
      expect(await flagOf(empty.body.data.ids[0] as number)).toBe(0);
      // AllowPrivateOutboundUrls lets an admin save a private one: recorded as not public.
      await f.setOption('AllowPrivateOutboundUrls', true);
      try {
        const allowed = await admin.post('/api/channel/', {
          mode: 'single',
          channel: {
            type: 1,
            name: 'rebind-allowed',
            key: KEY,
            models: 'rebind-unused',
            group: 'default',
            base_url: `http://svc.rebind.test:${canaryPort}`,
          },
        });
        expect(allowed.body.success, allowed.text).toBe(true);
        expect(await flagOf(allowed.body.data.ids[0] as number)).toBe(0);
      } finally {
        await f.setOption('AllowPrivateOutboundUrls', false);
      }
      // The two pending channels serve MODEL too: disabled, so the requests below go to the admin's channel.
      for (const row of (await f.ds.getRepository('channels').find()) as { id: number; name: string }[]) {
        if (row.name === 'rebind-pending') expect((await f.root.put('/api/channel/', { id: row.id, status: 2 })).body.success).toBe(true);
      }
      expect(hits).toBe(0);
    });

    it('refuses the connection once the name answers loopback: a clean 502, nothing reaches the canary', async () => {
      phase = 'loopback';
      const res = await chat(MODEL);
      const text = await res.text();
      expect(res.status, text).toBe(502);
      const body = JSON.parse(text) as { error: { message: string; type: string; code: unknown } };
      expect(body.error.message).toContain('its address is not public');
      for (const leak of ['127.0.0.1', 'rebind.test', PUBLIC, KEY.slice(3, 15)]) expect(text).not.toContain(leak);
      expect(hits).toBe(0);
    });

    it('applies the same rule to the console channel test and the model list', async () => {
      const tested = await admin.get(`/api/channel/test/${adminChannel}`);
      expect(tested.body, tested.text).toMatchObject({ success: false, message: expect.stringContaining('its address is not public') });
      const listed = await admin.get(`/api/channel/fetch_models/${adminChannel}`);
      expect(listed.body, listed.text).toMatchObject({ success: false, message: expect.stringContaining('its address is not public') });
      for (const text of [tested.text, listed.text]) expect(text).not.toContain('127.0.0.1');
      expect(hits).toBe(0);
    });

    it('counts the refusal against the channel as a connection failure (auto-disable)', async () => {
      await f.setOption('AutomaticDisableChannelEnabled', true);
      await f.setOption('AutomaticDisableKeywords', 'its address is not public');
      await f.setOption('ChannelDisableFailureCount', 1);
      try {
        expect((await chat(MODEL)).status).toBe(502);
        await expect
          .poll(async () => ((await f.ds.getRepository('channels').findOneBy({ id: adminChannel })) as { status: number }).status)
          .toBe(3);
      } finally {
        await f.setOption('AutomaticDisableChannelEnabled', false);
      }
      expect(hits).toBe(0);
      expect((await f.root.put('/api/channel/', { id: adminChannel, status: 1 })).body.success).toBe(true);
    });

    it("keeps root's private channel working (a service name that answers loopback)", async () => {
      const res = await chat(ROOT_MODEL);
      expect(res.status, await res.text()).toBe(200);
      expect(hits).toBe(0);
    });

    it('lifts the rule while AllowPrivateOutboundUrls is on, and leaves rows saved before the flag as they were', async () => {
      await f.setOption('AllowPrivateOutboundUrls', true);
      try {
        const res = await chat(MODEL);
        expect(res.status, await res.text()).toBe(200);
        expect(hits).toBe(1);
      } finally {
        await f.setOption('AllowPrivateOutboundUrls', false);
      }
      expect((await chat(MODEL)).status).toBe(502);
      expect(hits).toBe(1);
      // A row from before the column (or written by new-api): no check at connect time, as before.
      await f.ds.getRepository('channels').update(adminChannel, { baseUrlPublic: null });
      expect((await f.root.put('/api/channel/', { id: adminChannel, status: 1 })).body.success).toBe(true);
      expect(await flagOf(adminChannel)).toBe(null);
      const legacy = await chat(MODEL);
      expect(legacy.status, await legacy.text()).toBe(200);
      expect(hits).toBe(2);
    });
  },
);
