import { createHmac } from 'node:crypto';
import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { newBackupCodes, newTotpSecret, normalizeBackupCode, totpUri, verifyTotp } from './totp.js';

/** RFC 6238 (SHA-1, 6 digits, 30 s) written out, so a secret otplib refuses to generate for can be checked. */
function referenceTotp(base32: string, epochSeconds: number): string {
  let bits = '';
  for (const char of base32) bits += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(char).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g)!.map((byte) => Number.parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(epochSeconds / 30)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

describe('TOTP helpers', () => {
  it("verifies an 80-bit secret as new-api's Go library does (rows adopted from a new-api database)", async () => {
    const secret = 'JBSWY3DPEHPK3PXP';
    const now = Math.floor(Date.now() / 1000);
    expect(await verifyTotp(secret, referenceTotp(secret, now))).toBe(Math.floor(now / 30));
    const wrong = referenceTotp(secret, now + 600);
    expect(await verifyTotp(secret, wrong === referenceTotp(secret, now) ? '000000' : wrong)).toBeUndefined();
  });

  it('accepts the current code and refuses it again once its step is spent', async () => {
    const secret = newTotpSecret();
    const code = await generate({ secret });
    const step = await verifyTotp(secret, code);
    expect(step).toBe(Math.floor(Date.now() / 1000 / 30));
    expect(await verifyTotp(secret, code, step)).toBeUndefined();
    expect(await verifyTotp(secret, await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }), step)).toBe(step! + 1);
  });

  it('refuses malformed, far-off and foreign codes', async () => {
    const secret = newTotpSecret();
    expect(await verifyTotp(secret, '12345')).toBeUndefined();
    expect(await verifyTotp(secret, 'abcdef')).toBeUndefined();
    expect(await verifyTotp(secret, await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 300 }))).toBeUndefined();
    expect(await verifyTotp(newTotpSecret(), await generate({ secret }))).toBeUndefined();
  });

  it('builds an otpauth URI with the issuer and the account', () => {
    const uri = totpUri('AI Gateway', 'alice', 'JBSWY3DPEHPK3PXP');
    expect(uri).toMatch(/^otpauth:\/\/totp\/AI(%20| )Gateway:alice\?/);
    expect(uri).toContain('secret=JBSWY3DPEHPK3PXP');
    expect(uri).toContain('issuer=AI');
  });

  it('makes ten distinct XXXX-XXXX backup codes and normalises what users type', () => {
    const codes = newBackupCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(normalizeBackupCode('abcd efgh')).toBe('ABCD-EFGH');
    expect(normalizeBackupCode(' AbCd-EfGh ')).toBe('ABCD-EFGH');
    expect(normalizeBackupCode('ABCDEFG')).toBeUndefined();
    expect(normalizeBackupCode('ABCD-EFG!')).toBeUndefined();
  });
});
