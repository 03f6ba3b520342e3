import { Injectable } from '@nestjs/common';
import { BusinessError, UnauthorizedError, type Principal } from '@gw/core';
import { KvStore, UserService, verifyPassword } from '@gw/user';
import { TwoFactorService } from '../two-factor/two-factor.service.js';

/** How long a re-verification covers sensitive actions (new-api: 5 minutes). */
export const SECURE_VERIFICATION_SECONDS = 5 * 60;

/**
 * new-api's universal re-verification (`POST /api/verify`): before a sensitive action the logged-in
 * user proves it again with a 2FA code, a passkey or the password; the proof is tied to the session.
 */
@Injectable()
export class SecureVerificationService {
  constructor(
    private readonly kv: KvStore,
    private readonly twoFactor: TwoFactorService,
    private readonly users: UserService,
  ) {}

  private sessionOf(caller: Principal): string {
    if (!caller.sessionId) throw new BusinessError('re-verification needs a logged-in browser session');
    return caller.sessionId;
  }

  /** Called by passkey verify/finish: the passkey half is done, `/api/verify` turns it into a proof. */
  async passkeyReady(caller: Principal): Promise<void> {
    await this.kv.set(`secure:passkey:${this.sessionOf(caller)}`, String(caller.id), SECURE_VERIFICATION_SECONDS);
  }

  async verify(
    caller: Principal,
    method: '2fa' | 'passkey' | 'password',
    code: string,
    password: string,
  ): Promise<{ verified: true; expires_at: number }> {
    const session = this.sessionOf(caller);
    if (method === '2fa') {
      await this.twoFactor.verify(caller.id, code);
    } else if (method === 'passkey') {
      const ready = await this.kv.take(`secure:passkey:${session}`);
      if (ready !== String(caller.id)) throw new BusinessError('verify with your passkey first');
    } else {
      // With 2FA on, the password alone is not enough (it is the factor an attacker most likely has).
      if (await this.twoFactor.isEnabled(caller.id)) throw new BusinessError('two-factor authentication is on: verify with a code instead');
      const user = await this.users.findById(caller.id);
      if (!user) throw new UnauthorizedError();
      if (!password || !(await verifyPassword(password, user.password))) throw new BusinessError('the password is wrong');
    }
    const expiresAt = Math.floor(Date.now() / 1000) + SECURE_VERIFICATION_SECONDS;
    await this.kv.set(`secure:verified:${session}`, String(expiresAt), SECURE_VERIFICATION_SECONDS);
    return { verified: true, expires_at: expiresAt };
  }

  /** For sensitive routes: true while a recent re-verification covers this session. */
  async isVerified(caller: Principal): Promise<boolean> {
    if (!caller.sessionId) return false;
    const value = await this.kv.get(`secure:verified:${caller.sessionId}`);
    return value !== undefined && Number(value) > Date.now() / 1000;
  }
}
