import bcrypt from 'bcryptjs';
import { generate } from 'otplib';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const PASSWORD = 'secret-pass-1';

/** A TOTP code for `offsetSteps` 30-second steps from now (the server accepts one step either side). */
const totp = (secret: string, offsetSteps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });

describe.each(testDatabases())('two-factor login on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
  });
  afterAll(async () => gw?.close());

  async function newUser(username: string): Promise<ApiClient> {
    const created = await root.post('/api/user', { username, password: PASSWORD });
    expect(created.body.success, created.text).toBe(true);
    const client = gw.client();
    expect((await client.login(username, PASSWORD)).body.success).toBe(true);
    return client;
  }

  /** Sets up and turns on 2FA; returns the secret and the backup codes. */
  async function enable2fa(client: ApiClient): Promise<{ secret: string; codes: string[] }> {
    const setup = await client.post('/api/user/2fa/setup');
    expect(setup.body.success, setup.text).toBe(true);
    const { secret, qr_code_data, backup_codes } = setup.body.data;
    expect(qr_code_data).toMatch(/^otpauth:\/\/totp\//);
    expect(qr_code_data).toContain(`secret=${secret}`);
    expect(backup_codes).toHaveLength(10);
    for (const code of backup_codes) expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    const enabled = await client.post('/api/user/2fa/enable', { code: await totp(secret) });
    expect(enabled.body.success, enabled.text).toBe(true);
    return { secret, codes: backup_codes };
  }

  it('turns on only with a code from the app, and reports its state', async () => {
    const alice = await newUser('tfa_alice');
    expect((await alice.get('/api/user/2fa/status')).body.data).toEqual({ enabled: false, locked: false });
    const setup = await alice.post('/api/user/2fa/setup');
    const wrong = await alice.post('/api/user/2fa/enable', {
      code: '000000' === (await totp(setup.body.data.secret)) ? '111111' : '000000',
    });
    expect(wrong.body).toMatchObject({ success: false, message: expect.stringMatching(/wrong/) });
    const malformed = await alice.post('/api/user/2fa/enable', { code: 'abc' });
    expect(malformed.body).toMatchObject({ success: false, message: 'the verification code must be 6 digits' });
    const missing = await alice.post('/api/user/2fa/enable', {});
    expect(missing.status).toBeLessThan(500);
    expect(missing.body.success).toBe(false);
    expect((await alice.get('/api/user/2fa/status')).body.data.enabled).toBe(false);

    const ok = await alice.post('/api/user/2fa/enable', { code: await totp(setup.body.data.secret) });
    expect(ok.body.success, ok.text).toBe(true);
    expect((await alice.get('/api/user/2fa/status')).body.data).toEqual({ enabled: true, locked: false, backup_codes_remaining: 10 });
    const again = await alice.post('/api/user/2fa/setup');
    expect(again.body.success).toBe(false);
  });

  it('asks for the code after the password, and logs in with it', async () => {
    const bob = await newUser('tfa_bob');
    const { secret } = await enable2fa(bob);
    const browser = gw.client();
    const first = await browser.post('/api/user/login', { username: 'tfa_bob', password: PASSWORD });
    expect(first.body).toMatchObject({ success: true, data: { require_2fa: true } });
    expect(first.body.data.id).toBeUndefined();
    // The half-done login authenticates nothing.
    expect((await browser.get('/api/user/self', { 'New-Api-User': '0' })).status).toBe(401);

    const wrong = await browser.post('/api/user/login/2fa', { code: '12345' });
    expect(wrong.body.success).toBe(false);
    // The code used to turn 2FA on is spent; the next step's code is fresh.
    const replay = await browser.post('/api/user/login/2fa', { code: await totp(secret) });
    expect(replay.body.success).toBe(false);
    const second = await browser.post('/api/user/login/2fa', { code: await totp(secret, 1) });
    expect(second.body, second.text).toMatchObject({ success: true, data: { username: 'tfa_bob' } });
    browser.userId = second.body.data.id;
    expect((await browser.get('/api/user/self')).body.data.username).toBe('tfa_bob');

    // The pending login was single use.
    const reuse = await browser.post('/api/user/login/2fa', { code: await totp(secret, 1) });
    expect(reuse.body).toMatchObject({ success: false });
  });

  it('accepts a backup code once, and never again', async () => {
    const carol = await newUser('tfa_carol');
    const { codes } = await enable2fa(carol);
    const browser = gw.client();
    await browser.post('/api/user/login', { username: 'tfa_carol', password: PASSWORD });
    const lower = codes[0]!.toLowerCase().replace('-', '');
    const used = await browser.post('/api/user/login/2fa', { code: lower });
    expect(used.body, used.text).toMatchObject({ success: true, data: { username: 'tfa_carol' } });
    browser.userId = used.body.data.id;
    expect((await browser.get('/api/user/2fa/status')).body.data.backup_codes_remaining).toBe(9);

    const other = gw.client();
    await other.post('/api/user/login', { username: 'tfa_carol', password: PASSWORD });
    const reused = await other.post('/api/user/login/2fa', { code: codes[0] });
    expect(reused.body).toMatchObject({ success: false, message: expect.stringMatching(/wrong/) });
    const next = await other.post('/api/user/login/2fa', { code: codes[1] });
    expect(next.body.success).toBe(true);
  });

  it('locks the second factor after five wrong codes, even for the right one', async () => {
    const dave = await newUser('tfa_dave');
    const { secret } = await enable2fa(dave);
    const browser = gw.client();
    await browser.post('/api/user/login', { username: 'tfa_dave', password: PASSWORD });
    const right = await totp(secret, 1);
    const wrongCode = right === '999999' ? '999998' : '999999';
    // Parallel guesses share the same five attempts.
    const guesses = await Promise.all(Array.from({ length: 8 }, () => browser.post('/api/user/login/2fa', { code: wrongCode })));
    expect(guesses.every((g) => g.body.success === false)).toBe(true);
    const locked = await browser.post('/api/user/login/2fa', { code: right });
    expect(locked.body.success).toBe(false);
    expect(locked.body.message).toMatch(/locked/);
    expect((await dave.get('/api/user/2fa/status')).body.data.locked).toBe(true);
  });

  it('regenerates backup codes and turns off with a code', async () => {
    const erin = await newUser('tfa_erin');
    const { secret, codes } = await enable2fa(erin);
    const regen = await erin.post('/api/user/2fa/backup_codes', { code: await totp(secret, 1) });
    expect(regen.body.success, regen.text).toBe(true);
    expect(regen.body.data.backup_codes).toHaveLength(10);
    expect(regen.body.data.backup_codes).not.toContain(codes[0]);
    // Old codes are gone.
    expect((await erin.post('/api/user/2fa/disable', { code: codes[0] })).body.success).toBe(false);
    const off = await erin.post('/api/user/2fa/disable', { code: regen.body.data.backup_codes[0] });
    expect(off.body.success, off.text).toBe(true);
    expect((await erin.get('/api/user/2fa/status')).body.data).toEqual({ enabled: false, locked: false });
    const plain = await gw.client().login('tfa_erin', PASSWORD);
    expect(plain.body.data.require_2fa).toBeUndefined();
    expect(plain.body.data.username).toBe('tfa_erin');
  });

  it('lets an administrator see the adoption and turn off a user’s 2FA', async () => {
    const frank = await newUser('tfa_frank');
    await enable2fa(frank);
    const stats = await root.get('/api/user/2fa/stats');
    expect(stats.body.data.enabled_users).toBeGreaterThanOrEqual(1);
    expect(stats.body.data.total_users).toBeGreaterThan(stats.body.data.enabled_users - 1);
    expect(stats.body.data.enabled_rate).toMatch(/^\d+\.\d%$/);
    expect((await frank.get('/api/user/2fa/stats')).body.success).toBe(false);

    const id = frank.userId!;
    const off = await root.delete(`/api/user/${id}/2fa`);
    expect(off.body.success, off.text).toBe(true);
    // Its sessions ended with it.
    expect((await frank.get('/api/user/self')).status).toBe(401);
    expect((await root.delete(`/api/user/${id}/2fa`)).body.success).toBe(false);
    expect((await root.delete('/api/user/abc/2fa')).body.success).toBe(false);
    const plain = await gw.client().login('tfa_frank', PASSWORD);
    expect(plain.body.data.username).toBe('tfa_frank');
  });

  it('asks a user migrated from new-api (plain secret in two_fas) for the code', async () => {
    const grace = await newUser('tfa_grace');
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const db = gw.gateway.app.get(DataSource);
    // As new-api writes it: plain base32 secret, bcrypt-less columns left to their defaults.
    await db.query(
      kind === 'postgres'
        ? 'INSERT INTO two_fas (user_id, secret, is_enabled, failed_attempts) VALUES ($1, $2, true, 0)'
        : 'INSERT INTO two_fas (user_id, secret, is_enabled, failed_attempts) VALUES (?, ?, 1, 0)',
      [grace.userId, secret],
    );
    // new-api's backup codes: bcrypt of the normalised `XXXX-XXXX`.
    await db.query(
      kind === 'postgres'
        ? 'INSERT INTO two_fa_backup_codes (user_id, code_hash, is_used) VALUES ($1, $2, false)'
        : 'INSERT INTO two_fa_backup_codes (user_id, code_hash, is_used) VALUES (?, ?, 0)',
      [grace.userId, bcrypt.hashSync('ABCD-EFGH', 10)],
    );
    const browser = gw.client();
    const first = await browser.post('/api/user/login', { username: 'tfa_grace', password: PASSWORD });
    expect(first.body.data).toEqual({ require_2fa: true });
    const second = await browser.post('/api/user/login/2fa', { code: await totp(secret) });
    expect(second.body, second.text).toMatchObject({ success: true, data: { username: 'tfa_grace' } });
    const withBackup = gw.client();
    await withBackup.post('/api/user/login', { username: 'tfa_grace', password: PASSWORD });
    expect((await withBackup.post('/api/user/login/2fa', { code: 'abcd-efgh' })).body.success).toBe(true);
  });
});
