import { LogService } from '@gw/log';
import { TaskPoller } from '@gw/task';
import bcrypt from 'bcryptjs';
import OpenAI from 'openai';
import { createGuardrails, generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMidjourney, type FakeMidjourney } from '../fake-upstream/fake-midjourney.js';
import { startFakeSuno, type FakeSuno } from '../fake-upstream/fake-suno.js';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import { describeColumns, openRawDb, q, type ColumnInfo, type RawDb } from '../fixtures/new-api/raw-db.js';
import { NEW_API_TABLES } from '../fixtures/new-api/schema.js';
import { channelRow, insertRows, OLD, seedNewApiDatabase } from '../fixtures/new-api/seed.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../support/databases.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from './relay-fixture.js';

const TABLES = NEW_API_TABLES.map((table) => table.name);
/** The TOTP secret of bob's `two_fas` row, plain base32 as new-api stores it. */
const BOB_TOTP_SECRET = 'JBSWY3DPEHPK3PXP';
/** One of bob's new-api backup codes (its row holds a Go bcrypt hash of this dashed form). */
const BOB_BACKUP_CODE = 'K7QM-2XPA';
/** Channels new-api would have had for its tasks: a Midjourney proxy (type 2) and Suno (type 36). */
const MJ_CHANNEL = { id: 3, secret: 'mj-upstream-secret' };
const SUNO_CHANNEL = { id: 4, key: 'suno-upstream-key' };

/**
 * An operator points the gateway at the database new-api has been running on: the schema as new-api's
 * GORM models create it and rows as new-api writes them. Everything must keep working, and afterwards
 * every one of new-api's columns must still be there with its type, so new-api could take the database back.
 */
describe.each(testDatabases())('upgrade from a new-api database on %s', (kind) => {
  let up: FakeUpstream;
  let mj: FakeMidjourney;
  let suno: FakeSuno;
  let db: TestDatabase;
  let gw: TestGateway;
  let raw: RawDb;
  let columnsBefore: ColumnInfo[];

  const one = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await raw.query<T>(sql, params))[0]!;
  const num = (value: unknown) => Number(value);
  /** A JSON column's value: MySQL and PostgreSQL drivers hand `json` columns back parsed, SQLite as text. */
  const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

  beforeAll(async () => {
    up = await startFakeUpstream();
    mj = await startFakeMidjourney(MJ_CHANNEL.secret);
    suno = await startFakeSuno(SUNO_CHANNEL.key);
    db = await createTestDatabase(kind);
    await seedNewApiDatabase(db, up.url);
    raw = await openRawDb(db);
    await adoptInFlightTasks();
    await addBackupCode();
    columnsBefore = await describeColumns(raw, TABLES);
    // A short polling interval, so the old tasks are picked up by the gateway's own clock.
    gw = await startTestGateway(kind, { TASK_POLL_INTERVAL: '1' }, db);
  });

  /**
   * The fixture's unfinished Midjourney and Suno rows, moved onto task channels new-api would have had
   * (pointed at fake servers) and submitted just before the switch, so no timeout fails them first.
   * The fake servers know both tasks as still running.
   */
  async function adoptInFlightTasks() {
    await insertRows(raw, {
      channels: [
        channelRow(MJ_CHANNEL.id, 'old-midjourney', MJ_CHANNEL.secret, 'mj_imagine', mj.url, { type: 2 }),
        channelRow(SUNO_CHANNEL.id, 'old-suno', SUNO_CHANNEL.key, 'suno_music', suno.url, { type: 36 }),
      ],
    });
    const nowSeconds = Math.floor(Date.now() / 1000);
    await raw.query('UPDATE midjourneys SET channel_id = ?, submit_time = ? WHERE id = 1', [MJ_CHANNEL.id, nowSeconds * 1000]);
    await raw.query('UPDATE tasks SET channel_id = ?, submit_time = ? WHERE id = 1', [SUNO_CHANNEL.id, nowSeconds]);
    mj.tasks.set('mj-old-1', {
      id: 'mj-old-1',
      action: 'IMAGINE',
      prompt: 'a cat',
      status: 'IN_PROGRESS',
      progress: '10%',
      imageUrl: '',
      failReason: '',
      submitTime: nowSeconds * 1000,
      startTime: 0,
      finishTime: 0,
    });
    suno.tasks.set('task-old-1', {
      task_id: 'task-old-1',
      action: 'MUSIC',
      status: 'IN_PROGRESS',
      progress: '20%',
      fail_reason: '',
      submit_time: nowSeconds,
      start_time: nowSeconds,
      finish_time: 0,
      data: null,
    });
  }

  /** A backup code row for bob as new-api writes it: bcrypt (`$2a$`) of the code in its dashed form. */
  async function addBackupCode() {
    await insertRows(raw, {
      two_fa_backup_codes: [
        {
          id: 1,
          user_id: OLD.bob.id,
          code_hash: bcrypt.hashSync(BOB_BACKUP_CODE, 10).replace(/^\$2b\$/, '$2a$'),
          is_used: false,
          used_at: null,
          created_at: '2024-01-01 00:00:00',
          deleted_at: null,
        },
      ],
    });
  }

  afterAll(async () => {
    await gw?.close();
    await raw?.close();
    await up?.close();
    await mj?.close();
    await suno?.close();
    await db?.drop();
  });

  it('keeps the installation set up: no setup wizard, old options in force', async () => {
    const status = await gw.client().get('/api/status');
    expect(status.body.data.setup).toBe(true);
    expect(status.body.data.system_name).toBe('Old New API');
  });

  it('lets root and users sign in with their new-api passwords', async () => {
    const root = gw.client();
    expect((await root.login(OLD.root.username, OLD.root.password)).body).toMatchObject({
      success: true,
      data: { id: OLD.root.id, role: 100 },
    });
    const alice = gw.client();
    expect((await alice.login(OLD.alice.username, OLD.alice.password)).body).toMatchObject({ success: true, data: { id: OLD.alice.id } });
    const self = await alice.get('/api/user/self');
    expect(self.body.data).toMatchObject({
      quota: OLD.alice.quota,
      used_quota: OLD.alice.usedQuota,
      discord_id: 'discord-alice',
      stripe_customer: 'cus_alice',
    });
    expect((await gw.client().login(OLD.alice.username, 'wrong-password')).body.success).toBe(false);
  });

  it('asks a user with new-api two-factor login for the code, and logs in with it', async () => {
    const browser = gw.client();
    const first = await browser.post('/api/user/login', { username: OLD.bob.username, password: OLD.bob.password });
    expect(first.body).toMatchObject({ success: true, data: { require_2fa: true } });
    expect(first.body.data.id).toBeUndefined();
    // The password alone opened no session.
    expect((await browser.get('/api/user/self', { 'New-Api-User': String(OLD.bob.id) })).status).toBe(401);

    // An 80-bit secret: new-api accepts it, otplib only with its floor lowered.
    const code = await generate({ secret: BOB_TOTP_SECRET, guardrails: createGuardrails({ MIN_SECRET_BYTES: 10 }) });
    const wrong = await browser.post('/api/user/login/2fa', { code: code === '000000' ? '111111' : '000000' });
    expect(wrong.body.success).toBe(false);
    const second = await browser.post('/api/user/login/2fa', { code });
    expect(second.body, second.text).toMatchObject({ success: true, data: { id: OLD.bob.id, username: OLD.bob.username } });
    browser.userId = second.body.data.id;
    expect((await browser.get('/api/user/self')).body.data.username).toBe(OLD.bob.username);
  });

  it("accepts one of bob's new-api backup codes once, typed any way", async () => {
    const browser = gw.client();
    expect((await browser.login(OLD.bob.username, OLD.bob.password)).body.data).toMatchObject({ require_2fa: true });
    const used = await browser.post('/api/user/login/2fa', { code: BOB_BACKUP_CODE.toLowerCase().replace('-', ' ') });
    expect(used.body, used.text).toMatchObject({ success: true, data: { id: OLD.bob.id } });
    expect(num((await one('SELECT is_used FROM two_fa_backup_codes WHERE id = 1')).is_used)).toBe(1);

    const again = gw.client();
    await again.login(OLD.bob.username, OLD.bob.password);
    expect((await again.post('/api/user/login/2fa', { code: BOB_BACKUP_CODE })).body.success).toBe(false);
  });

  it('relays with an old token and charges the old users, tokens, channels and logs rows', async () => {
    up.reset();
    const before = {
      user: await one(`SELECT quota, used_quota, request_count FROM users WHERE id = ?`, [OLD.alice.id]),
      token: await one(`SELECT remain_quota, used_quota FROM tokens WHERE id = ?`, [OLD.aliceToken.id]),
      channel: await one(`SELECT used_quota FROM channels WHERE id = ?`, [OLD.single.id]),
    };
    const client = new OpenAI({ apiKey: `sk-${OLD.aliceToken.key}`, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const reply = await client.chat.completions.create({
      model: OLD.single.model,
      messages: [{ role: 'user', content: 'hello' }],
      service_tier: 'flex',
    });
    expect(reply.choices[0]?.message.content).toBeTruthy();
    expect(up.requests[0]?.headers.authorization).toBe(`Bearer ${OLD.single.key}`);
    expect(up.requests[0]?.headers['openai-organization']).toBe('org-old');
    // This channel's other settings allow service_tier through (the multi-key one below does not).
    expect(up.requests[0]?.body).toMatchObject({ service_tier: 'flex' });

    const log = await waitFor(
      async () => (await raw.query(`SELECT * FROM logs WHERE user_id = ? AND type = 2 AND id > 2`, [OLD.alice.id]))[0],
      'the consume log',
    );
    const charged = num(log.quota);
    expect(charged).toBeGreaterThan(0);
    expect(num(log.token_id)).toBe(OLD.aliceToken.id);
    expect(num(log.channel_id)).toBe(OLD.single.id);
    await waitFor(async () => {
      const user = await one(`SELECT quota, used_quota, request_count FROM users WHERE id = ?`, [OLD.alice.id]);
      return num(user.used_quota) === num(before.user.used_quota) + charged ? user : undefined;
    }, 'the user charge');
    const user = await one(`SELECT quota, used_quota, request_count FROM users WHERE id = ?`, [OLD.alice.id]);
    expect(num(user.quota)).toBe(num(before.user.quota) - charged);
    expect(num(user.request_count)).toBe(num(before.user.request_count) + 1);
    const token = await one(`SELECT remain_quota, used_quota FROM tokens WHERE id = ?`, [OLD.aliceToken.id]);
    expect(num(token.remain_quota)).toBe(num(before.token.remain_quota) - charged);
    expect(num(token.used_quota)).toBe(num(before.token.used_quota) + charged);
    await waitFor(async () => {
      const channel = await one(`SELECT used_quota FROM channels WHERE id = ?`, [OLD.single.id]);
      return num(channel.used_quota) === num(before.channel.used_quota) + charged ? true : undefined;
    }, 'the channel charge');
  });

  it('rotates the keys of a multi-key channel in polling mode, one key per request', async () => {
    up.reset();
    const client = new OpenAI({ apiKey: `sk-${OLD.aliceToken.key}`, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    for (let i = 0; i < 4; i++)
      await client.chat.completions.create({
        model: OLD.multi.model,
        messages: [{ role: 'user', content: `hi ${i}` }],
        service_tier: 'priority',
      });
    expect(up.requests.every((request) => !('service_tier' in request.body))).toBe(true);
    const used = up.requests.map((request) => request.headers.authorization);
    expect(used).toEqual([...OLD.multi.keys, OLD.multi.keys[0]].map((key) => `Bearer ${key}`));
  });

  it('lists the old logs and dashboard data', async () => {
    const root = gw.client();
    await root.login(OLD.root.username, OLD.root.password);
    const logs = await root.get('/api/log/?p=1&page_size=50');
    expect(logs.body.data.items.map((item: { content: string }) => item.content)).toContain(OLD.oldLogContent);
    const alice = gw.client();
    await alice.login(OLD.alice.username, OLD.alice.password);
    const data = await alice.get('/api/data/self?start_timestamp=1699990000&end_timestamp=1700100000');
    expect(data.body.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ model_name: OLD.single.model, quota: 1_234, count: 7 })]),
    );
  });

  it("shows new-api's own columns through the console API and writes them back", async () => {
    const root = gw.client();
    await root.login(OLD.root.username, OLD.root.password);
    const single = (await root.get(`/api/channel/${OLD.single.id}`)).body.data;
    expect(single).toMatchObject({
      key: '',
      openai_organization: 'org-old',
      settings: JSON.stringify({ allow_service_tier: true }),
      channel_info: { is_multi_key: false },
    });
    const multi = (await root.get(`/api/channel/${OLD.multi.id}`)).body.data;
    expect(multi.channel_info).toMatchObject({ is_multi_key: true, multi_key_size: 3, multi_key_mode: 'polling' });
    const edited = await root.put('/api/channel/', {
      id: OLD.single.id,
      settings: { allow_service_tier: false, azure_responses_version: '2025-04-01' },
    });
    expect(edited.body.success, edited.text).toBe(true);
    const stored = await one(`SELECT settings, open_ai_organization FROM channels WHERE id = ?`, [OLD.single.id]);
    expect(JSON.parse(String(stored.settings))).toEqual({ allow_service_tier: false, azure_responses_version: '2025-04-01' });
    expect(stored.open_ai_organization).toBe('org-old');

    const user = (await root.get(`/api/user/${OLD.alice.id}`)).body.data;
    expect(user).toMatchObject({
      remark: 'moved from new-api',
      discord_id: 'discord-alice',
      github_id: 'gh-alice',
      stripe_customer: 'cus_alice',
    });

    const alice = gw.client();
    await alice.login(OLD.alice.username, OLD.alice.password);
    const token = (await alice.get('/api/token/?p=1&page_size=10')).body.data.items[0];
    expect(token).toMatchObject({ id: OLD.aliceToken.id, cross_group_retry: true, unlimited_quota: false });
    const saved = await alice.put('/api/token/', {
      id: OLD.aliceToken.id,
      name: 'old-token',
      remain_quota: token.remain_quota,
      cross_group_retry: false,
      expired_time: -1,
    });
    expect(saved.body.success, saved.text).toBe(true);
    expect(num((await one(`SELECT cross_group_retry FROM tokens WHERE id = ?`, [OLD.aliceToken.id])).cross_group_retry)).toBe(0);

    const redeemed = await alice.post('/api/user/topup', { key: OLD.redemptionKey });
    expect(redeemed.body.success, redeemed.text).toBe(true);
    expect(num((await one(`SELECT used_user_id FROM redemptions WHERE id = 1`)).used_user_id)).toBe(OLD.alice.id);
  });

  it("keeps polling new-api's unfinished Midjourney and Suno tasks to their end, refunding a failure once", async () => {
    // The gateway's own clock asks each task's channel about it, with the channel's credentials.
    await waitFor(async () => (mj.listCalls() > 0 ? true : undefined), 'a Midjourney poll');
    const asked = mj.requests.find((request) => request.path === '/mj/task/list-by-condition')!;
    expect(asked.headers['mj-api-secret']).toBe(MJ_CHANNEL.secret);
    expect(asked.body.ids).toEqual(['mj-old-1']);
    await waitFor(async () => (suno.requests.some((request) => request.path === '/suno/fetch') ? true : undefined), 'a Suno poll');
    expect(suno.requests.find((request) => request.path === '/suno/fetch')!.body.ids).toEqual(['task-old-1']);

    const quotaBefore = num((await one(`SELECT quota FROM users WHERE id = ?`, [OLD.alice.id])).quota);
    mj.update('mj-old-1', { status: 'FAILURE', progress: '100%', failReason: 'banned prompt', finishTime: Date.now() });
    const audio = [{ id: 'clip-1', audio_url: 'https://cdn.example/clip-1.mp3' }];
    suno.update('task-old-1', { status: 'SUCCESS', progress: '100%', finish_time: Math.floor(Date.now() / 1000), data: audio });

    const failed = await waitFor(async () => {
      const row = await one(`SELECT status, fail_reason FROM midjourneys WHERE id = 1`);
      // The status moves with the refund; the details are written just after it.
      return row.status === 'FAILURE' && row.fail_reason ? row : undefined;
    }, 'the Midjourney failure');
    expect(failed.fail_reason).toBe('banned prompt');
    const done = await waitFor(async () => {
      const row = await one(`SELECT status, progress, data FROM tasks WHERE id = 1`);
      return row.status === 'SUCCESS' ? row : undefined;
    }, 'the Suno success');
    expect(done.progress).toBe('100%');
    expect(json(done.data)).toEqual(audio);

    // The failed task's 1000 quota goes back to its user once, however many passes follow.
    await gw.gateway.app.get(TaskPoller).runOnce();
    await gw.gateway.app.get(TaskPoller).runOnce();
    expect(num((await one(`SELECT quota FROM users WHERE id = ?`, [OLD.alice.id])).quota)).toBe(quotaBefore + 1000);
    await gw.gateway.app.get(LogService).flush();
    const refunds = (await raw.query<{ other: string }>(`SELECT other FROM logs WHERE user_id = ? AND type = 4`, [OLD.alice.id])).filter(
      (row) => String(row.other).includes('task_refund'),
    );
    expect(refunds).toHaveLength(1);
    expect(json(refunds[0]!.other)).toMatchObject({ task_table: 'midjourneys', task_row_id: 1 });
  });

  it('leaves every new-api column in place with its type, and the rows it does not manage untouched', async () => {
    const after = await describeColumns(raw, TABLES);
    const afterByName = new Map(after.map((column) => [`${column.table}.${column.column}`, column.type]));
    const missingOrChanged = columnsBefore.filter((column) => afterByName.get(`${column.table}.${column.column}`) !== column.type);
    expect(missingOrChanged).toEqual([]);
    expect(await one(`SELECT status, mj_id FROM midjourneys WHERE id = 1`)).toMatchObject({ status: 'FAILURE', mj_id: 'mj-old-1' });
    expect(num((await one(`SELECT is_enabled FROM two_fas WHERE user_id = ?`, [OLD.bob.id])).is_enabled)).toBe(1);
    expect(await one(`SELECT ${q(raw.dialect, 'key')} AS k FROM redemptions WHERE id = 1`)).toMatchObject({ k: OLD.redemptionKey });
    // The adopted dashboard table gained the unique hourly bucket key, so instances cannot insert a bucket twice.
    const bucket = await one('SELECT user_id, username, model_name, created_at FROM quota_data WHERE id = 1');
    await expect(
      raw.query(
        'INSERT INTO quota_data (user_id, username, model_name, created_at, token_used, count, quota) VALUES (?, ?, ?, ?, 0, 0, 0)',
        [bucket.user_id, bucket.username, bucket.model_name, bucket.created_at],
      ),
    ).rejects.toThrow();
    const unknownOption = await one(`SELECT value FROM options WHERE ${q(raw.dialect, 'key')} = ?`, ['SomeFutureOption']);
    expect(unknownOption.value).toBe('{not json');
    expect(await one(`SELECT status, task_id, platform FROM tasks WHERE id = 1`)).toMatchObject({
      status: 'SUCCESS',
      task_id: 'task-old-1',
      platform: 'suno',
    });
  });
});
