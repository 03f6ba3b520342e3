import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { BusinessError, Role, TooManyRequestsError, type Principal } from '@gw/core';
import { characterCount, type RegisterRequest } from '@gw/contracts';
import { OptionService } from '@gw/option';
import { MailService } from './mail.service.js';
import { PasswordHasher } from './password.js';
import { formatQuota } from './quota-text.js';
import { KvStore } from './support/kv-store.js';
import { randomAlnum, sixDigitCode } from './support/random.js';
import { UserHooks } from './user-events.js';
import type { UserEntity } from './user.entity.js';
import { UserRepository } from './user.repository.js';
import { PASSWORD_TOO_SHORT } from './user-admin.service.js';

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
const CODE_TTL_SECONDS = 10 * 60;
const RESET_TTL_SECONDS = 15 * 60;
const RESEND_SECONDS = 30;
const RESEND_PER_IP = 2;
const MAX_CODE_GUESSES = 5;

/** What a new account brings: its own balance gifts and the inviter's reward (0: none). */
interface Gifts {
  newUser: number;
  invitee: number;
  inviter: number;
}

export const CODE_INVALID = 'verification code is wrong or has expired';

export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Registration, email codes, password reset and email binding. */
@Injectable()
export class AccountService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UserRepository,
    private readonly options: OptionService,
    private readonly mail: MailService,
    private readonly kv: KvStore,
    private readonly hooks: UserHooks,
    private readonly passwords: PasswordHasher,
  ) {}

  /** Format, domain whitelist and alias rules shared by verification, registration and binding. */
  checkEmail(email: string): string {
    const normalized = email.trim().toLowerCase();
    if (!EMAIL.test(normalized)) throw new BusinessError('invalid email address');
    const [local, domain] = [normalized.slice(0, normalized.lastIndexOf('@')), normalized.slice(normalized.lastIndexOf('@') + 1)];
    if (this.options.get('EmailDomainRestrictionEnabled')) {
      const allowed = this.options
        .get('EmailDomainWhitelist')
        .split(',')
        .map((d) => d.trim().toLowerCase())
        .filter(Boolean);
      if (!allowed.includes(domain)) {
        throw new BusinessError('the administrator has enabled an email domain whitelist and your email domain is not on it');
      }
    }
    if (this.options.get('EmailAliasRestrictionEnabled') && local.includes('+')) {
      throw new BusinessError('email aliases (a+b@) are not allowed');
    }
    return normalized;
  }

  private async throttleIp(ip: string, purpose: string): Promise<void> {
    if ((await this.kv.hit(`${purpose}:ip:${ip}`, RESEND_SECONDS)) > RESEND_PER_IP) {
      throw new TooManyRequestsError('too many requests, try again in 30 seconds');
    }
  }

  private async throttle(email: string, ip: string, purpose: string): Promise<void> {
    await this.throttleIp(ip, purpose);
    if (!(await this.kv.setIfAbsent(`${purpose}:lock:${email}`, '1', RESEND_SECONDS))) {
      throw new TooManyRequestsError('a code was sent recently, try again in 30 seconds');
    }
  }

  /** GET /api/verification: a 6-digit code, valid 10 minutes. */
  async sendVerification(rawEmail: string, ip: string): Promise<void> {
    if (!rawEmail) throw new BusinessError('invalid email address');
    const email = this.checkEmail(rawEmail);
    if (!this.mail.configured) throw new BusinessError('SMTP is not configured');
    // The per-address limit comes before the "already in use" answer, so it cannot be used to enumerate emails quickly.
    await this.throttleIp(ip, 'verify');
    if (await this.users.bindingTaken('email', email)) throw new BusinessError('the email is already in use');
    if (!(await this.kv.setIfAbsent(`verify:lock:${email}`, '1', RESEND_SECONDS))) {
      throw new TooManyRequestsError('a code was sent recently, try again in 30 seconds');
    }
    const code = sixDigitCode();
    await this.kv.set(`verify:code:${email}`, code, CODE_TTL_SECONDS);
    await this.kv.del(`verify:bad:${email}`);
    const name = this.options.get('SystemName');
    await this.mail.send(
      email,
      `${name} email verification`,
      `<p>Your verification code is <b>${code}</b>.</p><p>It is valid for 10 minutes. If you did not ask for it, ignore this email.</p>`,
    );
  }

  /** Checks (and consumes) an email code; a few wrong guesses burn the code. */
  async checkCode(email: string, code: string): Promise<boolean> {
    const stored = await this.kv.get(`verify:code:${email}`);
    if (!stored || !code) return false;
    if (!sameSecret(stored, code)) {
      if ((await this.kv.hit(`verify:bad:${email}`, CODE_TTL_SECONDS)) >= MAX_CODE_GUESSES) await this.kv.del(`verify:code:${email}`);
      return false;
    }
    return (await this.kv.take(`verify:code:${email}`)) !== undefined;
  }

  async register(input: RegisterRequest): Promise<void> {
    if (!this.options.get('RegisterEnabled')) throw new BusinessError('the administrator has turned off new user registration');
    if (!this.options.get('PasswordRegisterEnabled')) {
      throw new BusinessError('the administrator has turned off password registration; register with a third-party account');
    }
    const username = input.username.trim();
    if (!username || !input.password) throw new BusinessError('username and password cannot be empty');
    if (input.password.length < 8) throw new BusinessError(PASSWORD_TOO_SHORT);
    if (input.password.length > 20) throw new BusinessError('password length must not exceed 20');
    if (input.password2 !== undefined && input.password2 !== input.password) throw new BusinessError('the two passwords differ');
    if (characterCount(username) > 12) throw new BusinessError('username must be at most 12 characters');

    // An email is kept only when it was proven by a code (as new-api): otherwise anyone could claim
    // someone else's address and block its owner from registering or binding it.
    let email: string | null = null;
    if (this.options.get('EmailVerificationEnabled')) {
      if (!input.email || !input.verification_code) throw new BusinessError('email and verification code are required');
      email = this.checkEmail(input.email);
      if (!(await this.checkCode(email, input.verification_code))) throw new BusinessError(CODE_INVALID);
    }
    if (await this.users.usernameTaken(username)) throw new BusinessError('username already exists');
    if (email && (await this.users.bindingTaken('email', email))) throw new BusinessError('the email is already in use');

    const inviter = input.aff_code ? await this.users.findByAffCode(input.aff_code) : null;
    const id = await this.createAccount({ username, password: input.password, email, inviterId: inviter?.id ?? 0 });
    // GENERATE_DEFAULT_TOKEN (new-api): the password sign-up's first token, made after the account, as there.
    await this.hooks.passwordRegistered({ id, username });
  }

  /** Creates a regular user with the new-user and invite rewards (also used by third-party sign-up). */
  async createAccount(input: {
    username: string;
    password: string;
    email?: string | null;
    displayName?: string;
    inviterId?: number;
    bindings?: Partial<Record<'githubId' | 'oidcId' | 'wechatId' | 'telegramId' | 'linuxDoId', string>>;
  }): Promise<number> {
    const inviterId = input.inviterId ?? 0;
    const gifts: Gifts = {
      newUser: this.options.get('QuotaForNewUser'),
      invitee: inviterId ? this.options.get('QuotaForInvitee') : 0,
      inviter: inviterId ? this.options.get('QuotaForInviter') : 0,
    };
    const passwordHash = await this.passwords.hash(input.password);
    try {
      return await this.dataSource.transaction(async (manager) => {
        const user = await this.users.insert(
          {
            username: input.username,
            password: passwordHash,
            displayName: input.displayName || input.username,
            role: Role.User,
            status: 1,
            email: input.email ?? null,
            quota: gifts.newUser + gifts.invitee,
            group: 'default',
            affCode: randomAlnum(6),
            inviterId,
            createdAt: Math.floor(Date.now() / 1000),
            ...input.bindings,
          },
          manager,
        );
        if (inviterId) await this.users.creditInviter(inviterId, gifts.inviter, manager);
        await this.auditGifts(user, inviterId, gifts, manager);
        return user.id;
      });
    } catch (error) {
      if (await this.users.usernameTaken(input.username)) throw new BusinessError('username already exists');
      throw error;
    }
  }

  /** One system row per gift that was more than nothing, in the account's transaction (as new-api). */
  private async auditGifts(user: UserEntity, inviterId: number, gifts: Gifts, manager: EntityManager): Promise<void> {
    const system = (userId: number, username: string, content: string) =>
      this.hooks.audit({ userId, username, kind: 'system', content }, manager);
    if (gifts.newUser > 0) {
      await system(user.id, user.username, `new user registration gift: ${formatQuota(this.options, gifts.newUser)}`);
    }
    if (gifts.invitee > 0) {
      await system(user.id, user.username, `invite code registration gift: ${formatQuota(this.options, gifts.invitee)}`);
    }
    if (gifts.inviter > 0) {
      const inviter = await this.users.findById(inviterId, manager);
      // The reward goes to invite earnings (aff_quota), which the inviter moves into the balance later.
      const content = `reward for inviting a new user: ${formatQuota(this.options, gifts.inviter)} added to invite earnings`;
      if (inviter) await system(inviter.id, inviter.username, content);
    }
  }

  /** GET /api/reset_password: mails a single-use link; answers the same whether or not the email is known. */
  async sendReset(rawEmail: string, ip: string): Promise<void> {
    if (!rawEmail) throw new BusinessError('invalid email address');
    const email = rawEmail.trim().toLowerCase();
    if (!EMAIL.test(email)) throw new BusinessError('invalid email address');
    if (!this.mail.configured) throw new BusinessError('SMTP is not configured');
    await this.throttle(email, ip, 'reset');
    const user = await this.users.findByEmail(email);
    if (!user) return;
    const token = randomBytes(24).toString('base64url');
    await this.kv.set(`reset:token:${email}`, token, RESET_TTL_SECONDS);
    const link = `${this.options.get('ServerAddress').replace(/\/+$/, '')}/user/reset?email=${encodeURIComponent(email)}&token=${token}`;
    await this.mail
      .send(
        email,
        `${this.options.get('SystemName')} password reset`,
        `<p>Open this link within 15 minutes to reset your password:</p><p><a href="${link}">${link}</a></p>`,
      )
      .catch(() => undefined);
  }

  /** POST /api/user/reset: sets a new random password, returns it and ends the user's sessions. */
  async resetPassword(rawEmail: string, token: string): Promise<string> {
    const email = rawEmail.trim().toLowerCase();
    const invalid = new BusinessError('the reset link is invalid or has expired');
    if (!email || !token) throw invalid;
    const stored = await this.kv.get(`reset:token:${email}`);
    if (!stored || !sameSecret(stored, token)) throw invalid;
    if ((await this.kv.take(`reset:token:${email}`)) === undefined) throw invalid;
    const user = await this.users.findByEmail(email);
    if (!user) throw invalid;
    const password = randomAlnum(12);
    await this.users.update(user.id, { password: await this.passwords.hash(password), accessToken: null });
    await this.hooks.revokeSessions(user.id);
    return password;
  }

  /** Binds an email to the caller after a code check. */
  async bindEmail(caller: Principal, rawEmail: string, code: string): Promise<void> {
    if (!rawEmail || !code) throw new BusinessError('email and verification code are required');
    const email = this.checkEmail(rawEmail);
    if (!(await this.checkCode(email, code))) throw new BusinessError(CODE_INVALID);
    const owner = await this.users.findByEmail(email);
    if (owner && owner.id !== caller.id) throw new BusinessError('the email is already in use');
    await this.users.update(caller.id, { email });
  }
}
