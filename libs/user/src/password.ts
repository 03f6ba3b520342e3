import { Inject, Injectable } from '@nestjs/common';
import bcrypt from 'bcryptjs';
import { APP_CONFIG, type AppConfig } from '@gw/core';

/**
 * Password hashing at the configured bcrypt cost (PASSWORD_HASH_COST, new-api's 10 by default), so a new-api
 * users table keeps working both ways. Checking needs no cost: each hash carries its own.
 */
@Injectable()
export class PasswordHasher {
  private readonly cost: number;
  /** Built on first use at the same cost, so a cheap start does not pay for a hash it may never need. */
  private dummy?: Promise<string>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.cost = config.passwordHashCost;
  }

  hash(plain: string): Promise<string> {
    return bcrypt.hash(plain, this.cost);
  }

  /**
   * Checks `plain` against a user's hash, or, for a user that does not exist, against a dummy hash that is
   * always refused, so "no such user" and "wrong password" take the same time.
   */
  async verifyOrDummy(plain: string, hash: string | undefined): Promise<boolean> {
    if (hash !== undefined) return verifyPassword(plain, hash);
    this.dummy ??= bcrypt.hash('timing-equaliser', this.cost);
    await bcrypt.compare(plain, await this.dummy);
    return false;
  }
}

export async function verifyPassword(plain: string, hash: string): Promise<boolean> {
  if (!hash.startsWith('$2')) return false;
  return bcrypt.compare(plain, hash);
}
