import { Injectable } from '@nestjs/common';
import { TooManyRequestsError } from '@gw/core';
import { KvStore } from '@gw/user';

export const TOO_MANY_FAILURES = 'too many failed attempts, try later';

/** Limits are per (account, IP), per account and per IP, so one attacker cannot lock an account out for everyone. */
export const LOGIN_LIMITS = {
  accountIp: { max: 10, windowSeconds: 15 * 60 },
  account: { max: 100, windowSeconds: 60 * 60 },
  ip: { max: 50, windowSeconds: 15 * 60 },
};

/**
 * Failed-login counters (threat A2). Every attempt is counted before the password is checked, in one
 * atomic increment per counter, so parallel guesses cannot all slip past a read-then-check; a
 * successful login gives its count back.
 */
@Injectable()
export class LoginLimiter {
  constructor(private readonly kv: KvStore) {}

  private keys(account: string, ip: string) {
    const name = account.trim().toLowerCase();
    return { accountIp: `login:fail:ai:${name}:${ip}`, account: `login:fail:a:${name}`, ip: `login:fail:ip:${ip}` };
  }

  /** Counts one attempt; throws when any limit is already used up. */
  async reserve(account: string, ip: string): Promise<void> {
    const keys = this.keys(account, ip);
    const [ai, a, i] = await Promise.all([
      this.kv.hit(keys.accountIp, LOGIN_LIMITS.accountIp.windowSeconds),
      this.kv.hit(keys.account, LOGIN_LIMITS.account.windowSeconds),
      this.kv.hit(keys.ip, LOGIN_LIMITS.ip.windowSeconds),
    ]);
    if (ai > LOGIN_LIMITS.accountIp.max || a > LOGIN_LIMITS.account.max || i > LOGIN_LIMITS.ip.max) {
      throw new TooManyRequestsError(TOO_MANY_FAILURES);
    }
  }

  /** The attempt succeeded: it does not count as a failure, and this address starts afresh on the account. */
  async release(account: string, ip: string): Promise<void> {
    const keys = this.keys(account, ip);
    await Promise.all([this.kv.del(keys.accountIp), this.kv.unhit(keys.account), this.kv.unhit(keys.ip)]);
  }
}
