import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const MERCHANT = { pid: '1001', key: 'epay-merchant-key-0123456789' };
const NOTIFY = '/api/user/epay/notify';

/** An independent implementation of the epay MD5 signature, as a payment provider computes it. */
function sign(fields: Record<string, string>, key = MERCHANT.key): Record<string, string> {
  const payload = Object.keys(fields)
    .filter((k) => k !== 'sign' && k !== 'sign_type' && fields[k] !== '')
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('&');
  return {
    ...fields,
    sign: createHash('md5')
      .update(payload + key)
      .digest('hex'),
    sign_type: 'MD5',
  };
}

function paidNotice(order: { trade_no: string; money: string }, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    pid: MERCHANT.pid,
    trade_no: `EP${order.trade_no}`,
    out_trade_no: order.trade_no,
    type: 'zfb',
    name: 'TUC10',
    money: order.money,
    trade_status: 'TRADE_SUCCESS',
    ...overrides,
  };
}

describe.each(testDatabases())('wallet: online top-up (epay) on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let alice: ApiClient;
  let bob: ApiClient;
  let db: DataSource;
  const ids: Record<string, number> = {};

  async function createUser(username: string): Promise<ApiClient> {
    expect((await root.post('/api/user/', { username, password: 'password-123' })).body.success).toBe(true);
    const found = await root.get(`/api/user/search?keyword=${username}`);
    ids[username] = found.body.data.items.find((u: { username: string }) => u.username === username).id;
    const client = gw.client();
    expect((await client.login(username, 'password-123')).body.success).toBe(true);
    return client;
  }

  async function setOption(key: string, value: string): Promise<void> {
    expect((await root.put('/api/option/', { key, value })).body, key).toMatchObject({ success: true });
  }

  async function quotaOf(userId: number): Promise<number> {
    return Number((await db.query(`SELECT quota FROM users WHERE id = ${userId}`))[0].quota);
  }

  async function topUpLogCount(userId: number): Promise<number> {
    return Number((await db.query(`SELECT COUNT(*) AS n FROM logs WHERE type = 1 AND user_id = ${userId}`))[0].n);
  }

  const notifyGet = (fields: Record<string, string>) => gw.client().get(`${NOTIFY}?${new URLSearchParams(fields)}`);
  const notifyPostQuery = (fields: Record<string, string>) => gw.client().post(`${NOTIFY}?${new URLSearchParams(fields)}`);
  const notifyPost = (fields: Record<string, string>) =>
    gw.client().raw('POST', NOTIFY, new URLSearchParams(fields).toString(), { 'content-type': 'application/x-www-form-urlencoded' });

  async function order(client: ApiClient, amount = 10): Promise<{ trade_no: string; money: string }> {
    const res = await client.post('/api/user/pay', { amount, top_up_code: '', payment_method: 'zfb' });
    expect(res.body.success).toBe(true);
    return { trade_no: res.body.data.out_trade_no, money: res.body.data.money };
  }

  async function orderRow(tradeNo: string): Promise<{ status: string; complete_time: number }> {
    const row = (await db.query(`SELECT status, complete_time FROM top_ups WHERE trade_no = '${tradeNo}'`))[0];
    return { status: row.status, complete_time: Number(row.complete_time) };
  }

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    db = gw.gateway.app.get(DataSource);
    alice = await createUser('alice');
    bob = await createUser('bob');
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('refuses quotes, orders and callbacks while online top-up is not configured', async () => {
    const off = { success: false, message: 'admin has not enabled online top-up' };
    expect((await alice.get('/api/user/topup/info')).body.data).toMatchObject({ enable_online_topup: false, min_topup: 1 });
    expect((await alice.post('/api/user/amount', { amount: 10, top_up_code: '' })).body).toEqual(off);
    expect((await alice.post('/api/user/pay', { amount: 10, top_up_code: '', payment_method: 'zfb' })).body).toEqual(off);
    const forged = await notifyGet(sign({ pid: MERCHANT.pid, out_trade_no: 'x', money: '1.00', trade_status: 'TRADE_SUCCESS' }, ''));
    expect(forged.text).toBe('fail');

    await setOption('PayAddress', 'https://pay.example.com/');
    await setOption('EpayId', MERCHANT.pid);
    await setOption('EpayKey', MERCHANT.key);
    await setOption('Price', '7.3');
    await setOption('MinTopUp', '2');
    await setOption('TopupGroupRatio', '{"default":1,"vip":0.5}');
    const info = await alice.get('/api/user/topup/info');
    expect(info.body.data).toMatchObject({ enable_online_topup: true, min_topup: 2, pay_methods: [{ type: 'zfb' }, { type: 'wx' }] });
    expect(info.text).not.toContain(MERCHANT.key);
  });

  it('quotes amount × Price × the group top-up ratio, with minimum and input checks', async () => {
    expect((await alice.post('/api/user/amount', { amount: 10, top_up_code: '' })).body).toEqual({
      success: true,
      message: 'success',
      data: '73.00',
    });
    expect((await alice.post('/api/user/amount', { amount: '3' })).body.data).toBe('21.90');
    expect((await alice.post('/api/user/amount', { amount: 1 })).body).toEqual({
      success: false,
      message: 'top-up amount cannot be below minimum: 2',
    });
    expect((await alice.post('/api/user/amount', { amount: 0 })).body).toEqual({
      success: false,
      message: 'top-up amount cannot be below minimum: 2',
    });
    expect((await alice.post('/api/user/amount', { amount: 2.5 })).body).toEqual({
      success: false,
      message: 'top-up amount must be an integer',
    });
    expect((await alice.post('/api/user/amount', { amount: 'ten' })).body).toEqual({
      success: false,
      message: 'top-up amount must be an integer',
    });
    expect((await alice.post('/api/user/amount', {})).body).toEqual({ success: false, message: 'top-up amount must be an integer' });

    await root.put('/api/user/', { id: ids.bob, group: 'vip' });
    const vip = gw.client();
    await vip.login('bob', 'password-123');
    expect((await vip.post('/api/user/amount', { amount: 10 })).body.data).toBe('36.50');
    await root.put('/api/user/', { id: ids.bob, group: 'default' });
  });

  it('creates a pending order and answers the signed epay form', async () => {
    expect((await alice.post('/api/user/pay', { amount: 10, payment_method: 'paypal' })).body).toEqual({
      success: false,
      message: 'payment method does not exist',
    });
    expect((await alice.post('/api/user/pay', { amount: 10 })).body).toEqual({ success: false, message: 'please choose a payment method' });
    expect((await alice.post('/api/user/pay', { amount: 1, payment_method: 'zfb' })).body).toEqual({
      success: false,
      message: 'top-up amount cannot be below minimum: 2',
    });
    expect((await alice.post('/api/user/pay', { amount: 10, payment_method: 'zfb' })).body).toEqual({
      success: false,
      message: 'server address is not set, ask the admin to set it before online top-up',
    });
    await setOption('ServerAddress', 'https://gw.example.com');

    const res = await alice.post('/api/user/pay', { amount: 10, top_up_code: '', payment_method: 'wx' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: 'success', url: 'https://pay.example.com/submit.php' });
    const form = res.body.data as Record<string, string>;
    expect(form).toMatchObject({
      pid: MERCHANT.pid,
      type: 'wx',
      notify_url: `https://gw.example.com${NOTIFY}`,
      return_url: 'https://gw.example.com/topup',
      name: 'TUC10',
      money: '73.00',
      sign_type: 'MD5',
    });
    expect(form.out_trade_no).toMatch(new RegExp(`^USR${ids.alice}NO[A-Za-z0-9]+$`));
    expect(form.sign).toBe(sign(form).sign);
    expect(res.text).not.toContain(MERCHANT.key);

    await setOption('CustomCallbackAddress', 'https://callback.example.com');
    const custom = await alice.post('/api/user/pay', { amount: 2, payment_method: 'zfb' });
    expect(custom.body.data.notify_url).toBe(`https://callback.example.com${NOTIFY}`);
    expect(custom.body.data.return_url).toBe('https://gw.example.com/topup');

    const mine = await alice.get('/api/user/topup/self?p=1&page_size=10');
    expect(mine.body.data).toMatchObject({ page: 1, page_size: 10, total: 2 });
    expect(mine.body.data.items[0]).toMatchObject({
      user_id: ids.alice,
      amount: 2,
      money: 14.6,
      payment_method: 'zfb',
      status: 'pending',
      complete_time: 0,
    });
    expect(mine.body.data.items[1]).toMatchObject({ amount: 10, money: 73, trade_no: form.out_trade_no, status: 'pending' });
    expect((await bob.get('/api/user/topup/self')).body.data).toMatchObject({ total: 0, items: [] });
  });

  it('credits nothing for a forged, mismatched, foreign or unknown callback', async () => {
    const target = await order(alice);
    const before = await quotaOf(ids.alice!);
    const logsBefore = await topUpLogCount(ids.alice!);
    const cases: [string, Record<string, string>][] = [
      ['forged signature (wrong key)', sign(paidNotice(target), 'guessed-key')],
      ['tampered after signing', { ...sign(paidNotice(target, { money: '0.01' })), money: target.money, out_trade_no: target.trade_no }],
      ['no signature', paidNotice(target)],
      ['amount mismatch (validly signed)', sign(paidNotice(target, { money: '0.01' }))],
      ['amount mismatch (more digits)', sign(paidNotice(target, { money: '73.001' }))],
      ['other merchant', sign(paidNotice(target, { pid: '9999' }))],
      ['not paid', sign(paidNotice(target, { trade_status: 'WAIT_BUYER_PAY' }))],
      ['unknown order', sign(paidNotice({ trade_no: 'USR1NOunknown', money: target.money }))],
      ['empty', {}],
    ];
    for (const [label, fields] of cases) {
      const res = await notifyGet(fields);
      expect(res.text, label).toBe('fail');
      expect((await notifyPost(fields)).text, label).toBe('fail');
    }
    expect(await quotaOf(ids.alice!)).toBe(before);
    expect(await topUpLogCount(ids.alice!)).toBe(logsBefore);
    expect((await orderRow(target.trade_no)).status).toBe('pending');
  });

  it('credits a paid order exactly once when the callback is delivered 10 times, some at once', async () => {
    const target = await order(alice);
    const before = await quotaOf(ids.alice!);
    const logsBefore = await topUpLogCount(ids.alice!);
    const notice = sign(paidNotice(target));

    const concurrent = await Promise.all([
      notifyGet(notice),
      notifyPost(notice),
      notifyGet(notice),
      notifyPost(notice),
      notifyGet(notice),
      notifyPost(notice),
    ]);
    const sequential: ApiResponse[] = [];
    for (let i = 0; i < 3; i++) sequential.push(await (i % 2 ? notifyPost(notice) : notifyGet(notice)));
    sequential.push(await notifyPostQuery(notice));

    for (const res of [...concurrent, ...sequential]) {
      expect(res.status).toBe(200);
      expect(res.text).toBe('success');
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    }
    expect(await quotaOf(ids.alice!)).toBe(before + 10 * 500000);
    expect(await topUpLogCount(ids.alice!)).toBe(logsBefore + 1);
    const log = (await db.query(`SELECT content, quota FROM logs WHERE type = 1 AND user_id = ${ids.alice} ORDER BY id DESC`))[0];
    expect(Number(log.quota)).toBe(5_000_000);
    expect(log.content).toContain('online top-up succeeded, quota +$10.00, paid 73.00');
    const row = await orderRow(target.trade_no);
    expect(row.status).toBe('success');
    expect(row.complete_time).toBeGreaterThan(0);
    const listed = (await alice.get('/api/user/topup/self')).body.data.items.find(
      (o: { trade_no: string }) => o.trade_no === target.trade_no,
    );
    expect(listed).toMatchObject({ status: 'success' });

    // A replay days later (or of another user's order id) still credits nothing.
    expect((await notifyPost(notice)).text).toBe('success');
    expect(await quotaOf(ids.alice!)).toBe(before + 10 * 500000);
    expect(await quotaOf(ids.bob!)).toBe(0);
  });

  it('never completes an order that is no longer pending, nor one of another payment provider', async () => {
    const expired = await order(alice);
    await db.query(`UPDATE top_ups SET status = 'expired' WHERE trade_no = '${expired.trade_no}'`);
    const foreign = await order(alice);
    await db.query(`UPDATE top_ups SET payment_provider = 'stripe' WHERE trade_no = '${foreign.trade_no}'`);
    const before = await quotaOf(ids.alice!);
    expect((await notifyGet(sign(paidNotice(expired)))).text).toBe('fail');
    expect((await notifyGet(sign(paidNotice(foreign)))).text).toBe('fail');
    expect(await quotaOf(ids.alice!)).toBe(before);
  });

  it('keeps the wallet routes for logged-in users and rejects callbacks once the key is removed', async () => {
    const anon = gw.client();
    expect((await anon.post('/api/user/amount', { amount: 10 })).status).toBe(401);
    expect((await anon.post('/api/user/pay', { amount: 10, payment_method: 'zfb' })).status).toBe(401);
    expect((await anon.get('/api/user/topup/self')).status).toBe(401);

    const pending = await order(alice);
    await setOption('EpayKey', '');
    expect((await notifyGet(sign(paidNotice(pending)))).text).toBe('fail');
    expect((await notifyGet(sign(paidNotice(pending), ''))).text).toBe('fail');
    expect((await orderRow(pending.trade_no)).status).toBe('pending');
  });
});
