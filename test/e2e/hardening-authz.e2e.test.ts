import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTION_REGISTRY } from '@gw/option';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import { ApiClient } from '../support/api-client.js';
import { CanaryScan } from '../support/canary.js';
import { isContractual5xx } from '../support/server-errors.js';
import { fillPath, type RouteEntry, routeTable } from '../support/route-table.js';
import { ROOT, setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { type AccessLevel, ROUTE_ACCESS } from './authz-expectations.js';

const MODEL = 'authz-model';
/** Random canaries: no 8-character window of one can occur in an answer by chance. */
const canaryValue = (prefix = '', bytes = 18) => `${prefix}${randomBytes(bytes).toString('base64url')}`;
const CHANNEL_KEYS = [canaryValue('sk-'), canaryValue('sk-')];
const SINGLE_KEY = canaryValue('sk-');
/** new-api's password rule: 8 to 20 characters. */
const PASSWORDS = { owner: canaryValue('', 12), other: canaryValue('', 12), admin: canaryValue('', 12) };
const WEBHOOK_SECRET = canaryValue();
const SESSION_SECRET = canaryValue();

type Identity = 'guest' | 'other' | 'owner' | 'admin' | 'root';
/** The attacker first, while the owner's objects are intact; root last, as its writes may remove them. */
const IDENTITIES: Identity[] = ['guest', 'other', 'owner', 'admin', 'root'];

/** Which identities a level lets through the door (what they then may do with the owner's ids is checked apart). */
const ALLOWED: Record<AccessLevel, Identity[]> = {
  public: IDENTITIES,
  user: ['other', 'owner', 'admin', 'root'],
  admin: ['admin', 'root'],
  root: ['root'],
  token: ['other', 'owner', 'admin', 'root'],
};

/** Calls that end the caller's own session or account: each identity makes them last. */
const ENDS_SESSION = new Set(['GET /api/user/logout', 'DELETE /api/user/self']);

interface Actor {
  client: ApiClient;
  /** The identity's API key (relay and other token routes). */
  key?: string;
}

/**
 * A refusal at the door: 401 (no or bad login or key), 403, or the console guard's success:false. A 403 asking
 * for a fresh security verification (`POST /api/verify`) comes after the role check passed: not a refusal.
 */
function refused(status: number, body: unknown): boolean {
  if (status === 403 && (body as { code?: unknown })?.code === 'VERIFICATION_REQUIRED') return false;
  if (status === 401 || status === 403) return true;
  const message = (body as { success?: boolean; message?: unknown })?.message;
  return (
    (body as { success?: boolean })?.success === false &&
    typeof message === 'string' &&
    /permission denied|insufficient role|not logged in|unauthori[sz]ed/i.test(message)
  );
}

describe('hardening: authorization matrix over the route table, with a canary scan of every answer and log line', () => {
  let gw: TestGateway;
  let up: FakeUpstream;
  let ds: DataSource;
  let routes: RouteEntry[];
  const actors = {} as Record<Identity, Actor>;
  const canary = new CanaryScan();
  const owner = { id: 0, username: 'ownerqz', tokenId: 0, tokenName: 'owner-token-canary', key: '', channelId: 0, redemptionId: 0 };
  /** Every (route, identity) whose door decision differs from ROUTE_ACCESS. */
  const doorMismatches: string[] = [];
  /** Answers to the other user that carried the owner's data. */
  const crossReads: string[] = [];
  const serverErrors: string[] = [];

  async function newUser(root: ApiClient, username: string, password: string): Promise<ApiClient> {
    const created = await root.post('/api/user/', { username, password });
    expect(created.body.success, created.text).toBe(true);
    const client = gw.client();
    expect((await client.login(username, password)).body.success).toBe(true);
    return client;
  }

  async function newToken(client: ApiClient, name: string): Promise<{ id: number; key: string }> {
    expect((await client.post('/api/token/', { name, remain_quota: 0, unlimited_quota: true, expired_time: -1 })).body.success).toBe(true);
    const id = (await client.get(`/api/token/search?keyword=${name}`)).body.data.items[0].id as number;
    return { id, key: `sk-${(await client.post(`/api/token/${id}/key`)).body.data.key.replace(/^sk-/, '')}` };
  }

  /** The value of a path parameter: always the owner's object where the route names one. */
  function idFor(route: RouteEntry, param: string): string {
    const p = route.path;
    if (param === 'id') {
      if (p.startsWith('/api/token/')) return String(owner.tokenId);
      if (p.startsWith('/api/user/')) return String(owner.id);
      if (p.startsWith('/api/channel/')) return String(owner.channelId);
      if (p.startsWith('/api/redemption/')) return String(owner.redemptionId);
      return 'owner-task-1';
    }
    const fixed: Record<string, string> = {
      mode: 'fast',
      action: 'imagine',
      kind: 'text2video',
      model: MODEL,
      provider: 'github',
      provider_id: '1',
      binding_type: 'github',
    };
    const value = fixed[param];
    if (value === undefined) throw new Error(`no value for :${param} of ${route.key}: add one to idFor`);
    return value;
  }

  /** One call as `who`, with the owner's ids in the path, the query and the body. */
  async function call(route: RouteEntry, who: Identity): Promise<{ status: number; body: unknown; text: string }> {
    const actor = actors[who];
    const path = fillPath(route.path, (param) => idFor(route, param));
    const query = `?p=1&page_size=5&id=${owner.tokenId}&user_id=${owner.id}&token_id=${owner.tokenId}`;
    const headers: Record<string, string> = {};
    const token = ROUTE_ACCESS[route.key] === 'token';
    if (token && actor.key) headers.authorization = `Bearer ${actor.key}`;
    const body =
      route.method === 'GET' || route.method === 'DELETE'
        ? undefined
        : {
            id: owner.tokenId,
            ids: [owner.tokenId],
            user_id: owner.id,
            token_id: owner.tokenId,
            name: 'authz-probe',
            username: owner.username,
            model: MODEL,
            messages: [{ role: 'user', content: 'hi' }],
            prompt: 'hi',
            input: 'hi',
          };
    // Token routes authenticate by key alone; a fresh client keeps the console session out of it.
    const client = token ? new ApiClient(gw.url) : actor.client;
    const res = await client.request(route.method, path + query, body, headers);
    return { status: res.status, body: res.body, text: res.text };
  }

  beforeAll(async () => {
    up = await startFakeUpstream();
    gw = await startTestGateway('sqlite', { LOG_LEVEL: 'debug', ERROR_LOG_ENABLED: 'true', SESSION_SECRET }, undefined, {
      logDestination: canary.logDestination(),
    });
    ds = gw.gateway.app.get(DataSource);
    routes = routeTable(gw.gateway.app);
    const root = await setupRoot(gw);

    // Every secret option gets a canary value.
    for (const [key, def] of Object.entries(OPTION_REGISTRY) as [string, { secret?: boolean }][]) {
      if (!def.secret) continue;
      const value = canaryValue();
      const saved = await root.put('/api/option/', { key, value });
      expect(saved.body.success, `${key}: ${saved.text}`).toBe(true);
      canary.plant(`option ${key}`, value);
    }
    expect((await root.put('/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [MODEL]: 1 }) })).body.success).toBe(true);
    // GET /api/ratio_config is public only while exposed (403 otherwise, as new-api).
    expect((await root.put('/api/option/', { key: 'ExposeRatioEnabled', value: 'true' })).body.success).toBe(true);

    // A multi-key channel and a single-key one.
    const multi = await root.post('/api/channel/', {
      mode: 'multi_to_single',
      multi_key_mode: 'polling',
      channel: { type: 1, name: 'authz-multi', key: CHANNEL_KEYS.join('\n'), models: MODEL, group: 'default', base_url: up.url },
    });
    expect(multi.body.success, multi.text).toBe(true);
    const single = await root.post('/api/channel/', {
      mode: 'single',
      channel: { type: 1, name: 'authz-single', key: SINGLE_KEY, models: MODEL, group: 'default', base_url: up.url },
    });
    expect(single.body.success, single.text).toBe(true);
    owner.channelId = single.body.data.ids[0];
    for (const [i, key] of [...CHANNEL_KEYS, SINGLE_KEY].entries()) canary.plant(`channel key ${i}`, key);

    // The owner, the other user and an admin, each with an API key; the owner also with a log row, a webhook secret and an access token.
    const ownerClient = await newUser(root, owner.username, PASSWORDS.owner);
    owner.id = ownerClient.userId!;
    const otherClient = await newUser(root, 'otherqz', PASSWORDS.other);
    const adminClient = await newUser(root, 'adminqz', PASSWORDS.admin);
    expect((await root.post('/api/user/manage', { id: adminClient.userId, action: 'promote' })).body.success).toBe(true);
    for (const [who, password] of Object.entries({ ...PASSWORDS, root: ROOT.password })) canary.plant(`${who} password`, password);
    await ds.query('UPDATE users SET quota = 10000000');
    const ownerToken = await newToken(ownerClient, owner.tokenName);
    Object.assign(owner, { tokenId: ownerToken.id, key: ownerToken.key });
    // The owner may read the owner's key back on purpose; nobody else, nowhere else.
    canary.plant('owner token key', ownerToken.key, (where) => /^owner POST \/api\/token\/(:id\/key|batch\/keys)$/.test(where));
    actors.owner = { client: ownerClient, key: ownerToken.key };
    actors.other = { client: otherClient, key: (await newToken(otherClient, 'other-token')).key };
    actors.admin = { client: adminClient, key: (await newToken(adminClient, 'admin-token')).key };
    actors.root = { client: root, key: (await newToken(root, 'root-token')).key };
    actors.guest = { client: gw.client() };
    for (const who of ['other', 'admin', 'root'] as const) canary.plant(`${who} token key`, actors[who].key!);
    const setting = await ownerClient.put('/api/user/setting', {
      notify_type: 'webhook',
      webhook_url: 'https://8.8.8.8/hook',
      webhook_secret: WEBHOOK_SECRET,
    });
    expect(setting.body.success, setting.text).toBe(true);
    // Not even its owner reads it back (GET /api/user/self says has_webhook_secret instead); no log line carries it.
    canary.plant('webhook secret', WEBHOOK_SECRET);
    const access = await ownerClient.get('/api/user/token');
    expect(access.body.success, access.text).toBe(true);
    canary.plant('owner access token', access.body.data);
    canary.plant('session secret', gw.config.session.secret);
    for (const who of ['owner', 'other', 'admin', 'root'] as const)
      canary.plant(`${who} session`, actors[who].client.cookie!.replace(/^session=/, ''));
    const chat = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerToken.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'owner-log-canary' }] }),
    });
    expect(chat.status).toBe(200);
    const codes = await root.post('/api/redemption/', { name: 'authz', quota: 1000, count: 1 });
    owner.redemptionId = (await root.get('/api/redemption/?p=1')).body.data.items[0].id;
    expect(codes.body.success).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await gw?.close();
    await up?.close();
  });

  it('has one expectation row per route of the running app (add a row to authz-expectations.ts for a new route)', () => {
    const keys = routes.map((r) => r.key);
    expect(keys.length).toBeGreaterThan(150);
    expect(
      keys.filter((key) => !(key in ROUTE_ACCESS)),
      'routes without a row',
    ).toEqual([]);
    expect(
      Object.keys(ROUTE_ACCESS).filter((key) => !keys.includes(key)),
      'rows without a route',
    ).toEqual([]);
  });

  it('lets exactly the expected identities through every route, and gives the other user nothing of the owner', async () => {
    const snapshot = async () =>
      JSON.stringify({
        user: await ds.query(
          'SELECT username, display_name, password, role, status, quota, "group", access_token, email FROM users WHERE id = ?',
          [owner.id],
        ),
        tokens: await ds.query('SELECT id, name, key, status, remain_quota, unlimited_quota, expired_time FROM tokens WHERE user_id = ?', [
          owner.id,
        ]),
      });
    const before = await snapshot();
    const ownerMarks = [owner.username, owner.tokenName, 'owner-log-canary'];
    // Key routes first (the owner's console calls delete the owner's key), calls that end the session last.
    const rank = (r: RouteEntry) => (ROUTE_ACCESS[r.key] === 'token' ? 0 : ENDS_SESSION.has(r.key) ? 2 : 1);
    const ordered = [...routes].sort((a, b) => rank(a) - rank(b));
    for (const who of IDENTITIES) {
      for (const route of ordered) {
        if (!(route.key in ROUTE_ACCESS)) continue;
        const { status, body, text } = await call(route, who);
        canary.scanBody(`${who} ${route.key}`, text);
        if (status >= 500 && !isContractual5xx(status, body)) serverErrors.push(`${who} ${route.key}: ${status} ${text.slice(0, 200)}`);
        const expected = ALLOWED[ROUTE_ACCESS[route.key]!].includes(who);
        if (refused(status, body) === expected)
          doorMismatches.push(`${who} ${route.key}: ${expected ? 'refused' : 'let through'} (${status} ${text.slice(0, 120)})`);
        if (who === 'other') {
          const leaked = ownerMarks.find((mark) => text.includes(mark)) ?? (text.includes(owner.key.slice(3, 20)) ? 'key' : undefined);
          if (leaked) crossReads.push(`${route.key} shows the owner's ${leaked}: ${text.slice(0, 160)}`);
        }
      }
      if (who === 'other') expect(await snapshot(), 'the other user changed the owner').toBe(before);
    }
    expect({ serverErrors, crossReads, doorMismatches }).toEqual({ serverErrors: [], crossReads: [], doorMismatches: [] });
  }, 180_000);

  it('finds no planted secret in any answer or log line of the run', () => {
    canary.scanLogs();
    expect(canary.size).toBeGreaterThanOrEqual(20);
    expect(canary.bodies).toBeGreaterThan(routes.length * 4);
    expect(canary.logLines.length).toBeGreaterThan(routes.length);
    expect(canary.findings).toEqual([]);
  });
});
