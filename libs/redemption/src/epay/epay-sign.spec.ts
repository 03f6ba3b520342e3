import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { epayPurchaseForm, epaySign, epaySubmitUrl, epayVerify } from './epay-sign.js';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

describe('epay signature', () => {
  it('signs the sorted non-empty fields without sign/sign_type, followed by the key', () => {
    const fields = { pid: '1001', type: 'alipay', money: '7.30', name: 'TUC1', empty: '', sign: 'x', sign_type: 'MD5' };
    expect(epaySign(fields, 'KEY')).toBe(md5('money=7.30&name=TUC1&pid=1001&type=alipay' + 'KEY'));
  });

  it('verifies its own signature and rejects a tampered field or a wrong key', () => {
    const fields = { pid: '1', out_trade_no: 'T1', money: '1.00', trade_status: 'TRADE_SUCCESS' };
    const signed = { ...fields, sign: epaySign(fields, 'k'), sign_type: 'MD5' };
    expect(epayVerify(signed, 'k')).toBe(true);
    expect(epayVerify({ ...signed, sign: signed.sign.toUpperCase() }, 'k')).toBe(true);
    expect(epayVerify({ ...signed, money: '100.00' }, 'k')).toBe(false);
    expect(epayVerify(signed, 'other')).toBe(false);
    expect(epayVerify({ ...fields, sign: '' }, 'k')).toBe(false);
    expect(epayVerify(fields, 'k')).toBe(false);
  });

  it('builds the purchase form with sign_type MD5 and a verifiable sign', () => {
    const form = epayPurchaseForm({
      pid: '9',
      key: 'secret',
      type: 'wx',
      tradeNo: 'USR1NOabc',
      notifyUrl: 'https://gw/api/user/epay/notify',
      returnUrl: 'https://gw/topup',
      name: 'TUC10',
      money: '73.00',
    });
    expect(form).toMatchObject({ pid: '9', type: 'wx', out_trade_no: 'USR1NOabc', money: '73.00', sign_type: 'MD5' });
    expect(epayVerify(form, 'secret')).toBe(true);
  });

  it('appends submit.php to the pay address', () => {
    expect(epaySubmitUrl('https://pay.example.com/')).toBe('https://pay.example.com/submit.php');
    expect(epaySubmitUrl('https://pay.example.com/epay')).toBe('https://pay.example.com/epay/submit.php');
  });
});
