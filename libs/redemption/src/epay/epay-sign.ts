import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The standard epay (易支付) MD5 signature: the non-empty fields except `sign` and `sign_type`, sorted by
 * key ascending, joined as `k=v&k=v`, followed directly by the merchant key; lowercase hex MD5.
 */
export function epaySign(fields: Record<string, string>, key: string): string {
  const payload = Object.keys(fields)
    .filter((name) => name !== 'sign' && name !== 'sign_type' && fields[name] !== '' && fields[name] !== undefined)
    .sort()
    .map((name) => `${name}=${fields[name]}`)
    .join('&');
  return createHash('md5')
    .update(payload + key, 'utf8')
    .digest('hex');
}

/** Checks a callback's `sign` in constant time (no early exit that would leak how much of it matched). */
export function epayVerify(fields: Record<string, string>, key: string): boolean {
  const given = typeof fields.sign === 'string' ? fields.sign.toLowerCase() : '';
  const expected = epaySign(fields, key);
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The form posted to `{PayAddress}/submit.php`, signed. */
export function epayPurchaseForm(args: {
  pid: string;
  key: string;
  type: string;
  tradeNo: string;
  notifyUrl: string;
  returnUrl: string;
  name: string;
  money: string;
}): Record<string, string> {
  const fields: Record<string, string> = {
    pid: args.pid,
    type: args.type,
    out_trade_no: args.tradeNo,
    notify_url: args.notifyUrl,
    return_url: args.returnUrl,
    name: args.name,
    money: args.money,
    device: 'pc',
  };
  return { ...fields, sign: epaySign(fields, args.key), sign_type: 'MD5' };
}

/** `{PayAddress}/submit.php`, whatever trailing slashes the admin typed. */
export function epaySubmitUrl(payAddress: string): string {
  return `${payAddress.replace(/\/+$/, '')}/submit.php`;
}
