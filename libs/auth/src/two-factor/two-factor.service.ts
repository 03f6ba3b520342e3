import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  APP_CONFIG,
  BusinessError,
  ForbiddenError,
  NotFoundError,
  Role,
  TooManyRequestsError,
  type AppConfig,
  type Principal,
} from '@gw/core';
import { OptionService } from '@gw/option';
import { sameSecret, UserHooks, UserService, verifyPassword } from '@gw/user';
import { SecretBox } from '../support/secret-box.js';
import { isTotpShape, newBackupCodes, newTotpSecret, normalizeBackupCode, stepOf, TOTP_PERIOD, totpUri, verifyTotp } from './totp.js';
import type { TwoFaEntity } from './two-factor.entity.js';
import { TwoFactorRepository } from './two-factor.repository.js';

/** new-api's limits: 5 wrong codes lock the second factor for 5 minutes. */
export const TWO_FA_MAX_ATTEMPTS = 5;
export const TWO_FA_LOCK_SECONDS = 300;

export const WRONG_CODE = 'the verification code or backup code is wrong, try again';
export const NOT_ENABLED = 'two-factor authentication is not enabled';

export interface TwoFaStatus {
  enabled: boolean;
  locked: boolean;
  backup_codes_remaining?: number;
}

/** TOTP two-factor login with single-use backup codes, stored in new-api's tables. */
@Injectable()
export class TwoFactorService {
  private readonly box: SecretBox;
  private readonly pepper: string;

  constructor(
    private readonly repo: TwoFactorRepository,
    private readonly users: UserService,
    private readonly options: OptionService,
    private readonly hooks: UserHooks,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.box = new SecretBox(config.session.cryptoSecret, 'two-factor-secret');
    this.pepper = config.session.cryptoSecret;
  }

  /**
   * Backup codes are stored as an HMAC keyed by CRYPTO_SECRET: a stolen database alone cannot test
   * guesses, and checking ten codes costs microseconds, not ten bcrypt rounds. Codes imported from
   * new-api are bcrypt hashes and are still accepted.
   */
  private hashCode(code: string): string {
    return `hmac:${createHmac('sha256', this.pepper).update(`two-factor-backup:${code}`).digest('hex')}`;
  }

  async isEnabled(userId: number): Promise<boolean> {
    return (await this.repo.findByUser(userId))?.isEnabled === true;
  }

  async status(userId: number): Promise<TwoFaStatus> {
    const row = await this.repo.findByUser(userId);
    if (!row) return { enabled: false, locked: false };
    const status: TwoFaStatus = { enabled: row.isEnabled, locked: isLocked(row) };
    if (row.isEnabled) status.backup_codes_remaining = await this.repo.countUnusedCodes(userId);
    return status;
  }

  /** Starts (or restarts) a setup: a new secret and backup codes, off until a code proves the app has it. */
  async setup(userId: number): Promise<{ secret: string; qr_code_data: string; backup_codes: string[] }> {
    const existing = await this.repo.findByUser(userId);
    if (existing?.isEnabled) throw new BusinessError('two-factor authentication is already on; turn it off before setting it up again');
    const user = await this.users.findById(userId);
    if (!user) throw new NotFoundError('user does not exist');
    const secret = newTotpSecret();
    const codes = newBackupCodes();
    await this.repo.replacePending(
      userId,
      this.box.seal(secret),
      codes.map((c) => this.hashCode(c)),
    );
    const issuer = this.options.get('SystemName') || 'AI Gateway';
    return { secret, qr_code_data: totpUri(issuer, user.username, secret), backup_codes: codes };
  }

  async enable(userId: number, code: string): Promise<void> {
    const row = await this.repo.findByUser(userId);
    if (!row) throw new BusinessError('set up two-factor authentication first');
    if (row.isEnabled) throw new BusinessError('two-factor authentication is already on');
    if (!isTotpShape(code.replace(/\s/g, ''))) throw new BusinessError('the verification code must be 6 digits');
    // The step of the code used stays spent: a next-step code (an authenticator running fast) must not work again.
    const usedAt = await this.checkCode(row, code, false);
    if (!(await this.repo.enable(row.id, usedAt))) throw new BusinessError('two-factor authentication is already on');
  }

  async disable(userId: number, code: string, sessionId?: string): Promise<void> {
    const row = await this.enabledRow(userId);
    await this.checkCode(row, code, true);
    await this.repo.remove(userId);
    // Sessions that logged in with the second factor stay valid only here.
    await this.hooks.revokeSessions(userId, sessionId);
  }

  async regenerateBackupCodes(userId: number, code: string): Promise<{ backup_codes: string[] }> {
    const row = await this.enabledRow(userId);
    if (!isTotpShape(code.replace(/\s/g, ''))) throw new BusinessError('the verification code must be 6 digits');
    await this.checkCode(row, code, false);
    const codes = newBackupCodes();
    await this.repo.replaceCodes(
      userId,
      codes.map((c) => this.hashCode(c)),
    );
    return { backup_codes: codes };
  }

  /** The second step of a login or a sensitive action: a TOTP code or an unused backup code. */
  async verify(userId: number, code: string): Promise<void> {
    await this.checkCode(await this.enabledRow(userId), code, true);
  }

  async stats(): Promise<{ total_users: number; enabled_users: number; enabled_rate: string }> {
    const [total, enabled] = await Promise.all([this.users.countAll(), this.repo.countEnabled()]);
    const rate = total > 0 ? (enabled / total) * 100 : 0;
    return { total_users: total, enabled_users: enabled, enabled_rate: `${rate.toFixed(1)}%` };
  }

  /** An administrator turns a user's 2FA off (lost phone); only for users below the caller, root for anyone. */
  async adminDisable(caller: Principal, targetId: number): Promise<void> {
    const target = await this.users.findById(targetId);
    if (!target) throw new NotFoundError('user does not exist');
    if (caller.role !== Role.Root && target.role >= caller.role) {
      throw new ForbiddenError('no permission to change the two-factor settings of a user with the same or a higher role');
    }
    if (!(await this.isEnabled(targetId))) throw new BusinessError(NOT_ENABLED);
    await this.repo.remove(targetId);
    await this.hooks.revokeSessions(targetId);
  }

  private async enabledRow(userId: number): Promise<TwoFaEntity> {
    const row = await this.repo.findByUser(userId);
    if (!row?.isEnabled) throw new BusinessError(NOT_ENABLED);
    return row;
  }

  /**
   * One attempt: refused while locked; counted before the check (atomic), so parallel guesses share
   * the same five; the fifth failure locks for five minutes; a success clears the count. Returns the
   * `last_used_at` recorded (the matched code's step, so it cannot be replayed).
   */
  private async checkCode(row: TwoFaEntity, rawCode: string, allowBackup: boolean): Promise<Date> {
    const code = String(rawCode ?? '').trim();
    if (!code) throw new BusinessError('the verification code is empty');
    if (row.lockedUntil) {
      if (row.lockedUntil.getTime() > Date.now()) throw lockedError(row.lockedUntil);
      await this.repo.update(row.id, { failedAttempts: 0, lockedUntil: null });
      row.failedAttempts = 0;
    }
    if (!(await this.repo.reserveAttempt(row.id, TWO_FA_MAX_ATTEMPTS))) {
      const until = new Date(Date.now() + TWO_FA_LOCK_SECONDS * 1000);
      await this.repo.update(row.id, { lockedUntil: until });
      throw lockedError(until);
    }
    const now = new Date();
    const step = await this.matchTotp(row, code);
    const ok = step !== undefined || (allowBackup && (await this.useBackupCode(row.userId, code, now)));
    if (ok) {
      // Remember the step used (or the current one, if later), so its code and older ones are refused from now
      // on (replay). Stored as the step's first second: a DATETIME without fractions may round 12:00:29.7 up to
      // the next step (MySQL rounds), which would refuse that step's valid code.
      const usedAt = step !== undefined ? new Date(Math.max(stepOf(now), step) * TOTP_PERIOD * 1000) : now;
      await this.repo.update(row.id, { failedAttempts: 0, lockedUntil: null, lastUsedAt: usedAt });
      return usedAt;
    }
    const fresh = await this.repo.findByUser(row.userId);
    if (fresh && fresh.failedAttempts >= TWO_FA_MAX_ATTEMPTS) {
      await this.repo.update(row.id, { lockedUntil: new Date(Date.now() + TWO_FA_LOCK_SECONDS * 1000) });
    }
    throw new BusinessError(WRONG_CODE);
  }

  private async matchTotp(row: TwoFaEntity, code: string): Promise<number | undefined> {
    const digits = code.replace(/\s/g, '');
    if (!isTotpShape(digits)) return undefined;
    const secret = this.box.open(row.secret);
    if (!secret)
      throw new BusinessError('the two-factor secret cannot be read (was CRYPTO_SECRET changed?); ask an administrator to reset it');
    return verifyTotp(secret, digits, row.lastUsedAt ? stepOf(row.lastUsedAt) : undefined);
  }

  private async useBackupCode(userId: number, input: string, now: Date): Promise<boolean> {
    const code = normalizeBackupCode(input);
    if (!code) return false;
    const hashed = this.hashCode(code);
    for (const candidate of await this.repo.unusedCodes(userId)) {
      const match = candidate.codeHash.startsWith('hmac:')
        ? sameSecret(candidate.codeHash, hashed)
        : await verifyPassword(code, candidate.codeHash);
      if (match) return this.repo.useCode(candidate.id, now);
    }
    return false;
  }
}

function isLocked(row: TwoFaEntity): boolean {
  return row.lockedUntil !== null && row.lockedUntil.getTime() > Date.now();
}

function lockedError(until: Date): TooManyRequestsError {
  return new TooManyRequestsError(`too many wrong codes: two-factor verification is locked until ${until.toISOString()}`);
}
