import { randomInt } from 'node:crypto';
import { createGuardrails, generateSecret, generateURI, verify } from 'otplib';

/** new-api's TOTP parameters (SHA-1, 6 digits, 30 s), which every authenticator app supports. */
export const TOTP_PERIOD = 30;
export const BACKUP_CODE_COUNT = 10;
const BACKUP_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * Secrets are read down to 80 bits (16 base32 characters, the size many authenticator guides use):
 * new-api's Go library verifies secrets of any length, so a row adopted from it may hold one shorter
 * than otplib's default floor of 128 bits. Secrets made here stay 160 bits.
 */
const ADOPTED_SECRET_GUARDRAILS = createGuardrails({ MIN_SECRET_BYTES: 10 });

export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function totpUri(issuer: string, account: string, secret: string): string {
  return generateURI({ issuer, label: account, secret, digits: 6, period: TOTP_PERIOD });
}

export function isTotpShape(code: string): boolean {
  return /^\d{6}$/.test(code);
}

/**
 * Checks a code against the previous, current and next 30-second steps. A step at or before
 * `lastStep` is refused, so a code seen once (shoulder, log, proxy) cannot be replayed.
 * Returns the matched step, or undefined.
 */
export async function verifyTotp(secret: string, code: string, lastStep?: number): Promise<number | undefined> {
  if (!isTotpShape(code)) return undefined;
  try {
    const result = await verify({
      secret,
      token: code,
      period: TOTP_PERIOD,
      epochTolerance: TOTP_PERIOD,
      guardrails: ADOPTED_SECRET_GUARDRAILS,
      ...(lastStep !== undefined ? { afterTimeStep: lastStep } : {}),
    });
    if (!result.valid) return undefined;
    return 'timeStep' in result ? Number(result.timeStep) : Math.floor(Date.now() / 1000 / TOTP_PERIOD);
  } catch {
    return undefined;
  }
}

/** Time step of a moment (seconds since the epoch). */
export function stepOf(date: Date): number {
  return Math.floor(date.getTime() / 1000 / TOTP_PERIOD);
}

/** `XXXX-XXXX` from an unbiased alphabet of letters and digits (new-api's format). */
export function newBackupCodes(count = BACKUP_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    let code = '';
    for (let i = 0; i < 8; i++) code += BACKUP_ALPHABET[randomInt(BACKUP_ALPHABET.length)];
    return `${code.slice(0, 4)}-${code.slice(4)}`;
  });
}

/** `abcd efgh`, `ABCDEFGH`, `abcd-efgh` → `ABCD-EFGH`; undefined when it cannot be a backup code. */
export function normalizeBackupCode(input: string): string | undefined {
  const clean = input.replace(/[\s-]/g, '').toUpperCase();
  if (!/^[A-Z0-9]{8}$/.test(clean)) return undefined;
  return `${clean.slice(0, 4)}-${clean.slice(4)}`;
}
