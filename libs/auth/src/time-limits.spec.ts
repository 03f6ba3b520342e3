import { generate } from 'otplib';
import type { Request, Response } from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppConfig, Principal, RedisService } from '@gw/core';
import type { OptionService } from '@gw/option';
import { KvStore, UserHooks, type UserEntity, type UserService } from '@gw/user';
import { LoginLimiter, TOO_MANY_FAILURES } from './login/login-limiter.js';
import { PendingLogins } from './login/pending-login.js';
import { OAuthStateStore } from './oauth/oauth-state.js';
import { telegramHash, verifyTelegram } from './oauth/telegram.js';
import { newSessionToken, SESSION_COOKIE } from './session/session-cookie.js';
import type { SessionEntity } from './session/session.entity.js';
import type { SessionRepository } from './session/session.repository.js';
import { SessionService } from './session/session.service.js';
import { SecretBox } from './support/secret-box.js';
import { TOTP_PERIOD, verifyTotp } from './two-factor/totp.js';
import type { TwoFaEntity } from './two-factor/two-factor.entity.js';
import type { TwoFactorRepository } from './two-factor/two-factor.repository.js';
import { TwoFactorService, WRONG_CODE } from './two-factor/two-factor.service.js';
import { SecureVerificationService } from './verify/secure-verification.service.js';

/**
 * Threat F8 (clock skew and time) and the time limits of A4 (OAuth state), A5 (Telegram auth_date) and ASVS
 * V6.5 (TOTP): each time check just inside its limit (accepted) and just outside (refused). The clock is the
 * code's own `now` parameter where it has one, else a fake Date and performance clock; nothing sleeps.
 */
const T0 = Date.UTC(2030, 0, 15, 12, 0, 0);
const SECRET = 'time-limits-secret-0123456789abcdef';
const config = { session: { secret: SECRET, cryptoSecret: SECRET } } as AppConfig;

// The documented limits, written out (not imported), so a changed limit fails here.
const TELEGRAM_MAX_AGE_SECONDS = 24 * 3600;
const TWO_FA_LOCK_SECONDS = 5 * 60;
const SECURE_VERIFICATION_SECONDS = 5 * 60;
const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;
/** Failed logins of one account from one address: 10 per 15 minutes (threat A2). */
const ACCOUNT_IP_LIMIT = { max: 10, windowSeconds: 15 * 60 };

/** Fakes only the clocks (Date and performance.now): promises and timers keep running for real. */
function clockAt(ms: number): void {
  vi.useFakeTimers({ toFake: ['Date', 'performance'], now: ms });
}
const advance = (ms: number) => vi.advanceTimersByTime(ms);
const memoryKv = () => new KvStore({ ready: undefined, key: (k: string) => k } as unknown as RedisService);

afterEach(() => vi.useRealTimers());

describe('Telegram auth_date (threat A5): at most a day old, at most 5 minutes ahead', () => {
  const TOKEN = '123456:ABC-time-limits';
  const now = 1_900_000_000;
  const signedAt = (authDate: number) => {
    const data = { id: '42', first_name: 'Ann', auth_date: String(authDate) };
    return { ...data, hash: telegramHash(data, TOKEN) };
  };

  it('accepts a login signed exactly a day ago, refuses one a second older', () => {
    expect(verifyTelegram(signedAt(now - TELEGRAM_MAX_AGE_SECONDS), TOKEN, now)).toBe(true);
    expect(verifyTelegram(signedAt(now - TELEGRAM_MAX_AGE_SECONDS - 1), TOKEN, now)).toBe(false);
  });

  it('tolerates a Telegram clock 5 minutes ahead, not a second more', () => {
    expect(verifyTelegram(signedAt(now + 300), TOKEN, now)).toBe(true);
    expect(verifyTelegram(signedAt(now + 301), TOKEN, now)).toBe(false);
  });
});

describe('TOTP window (ASVS V6.5.5, threat F8): one 30-second step either side, never two', () => {
  const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
  const codeAt = (seconds: number) => generate({ secret, epoch: seconds });
  const k = Math.floor(T0 / 1000 / TOTP_PERIOD);

  it.each([
    ['first', 0],
    ['last', TOTP_PERIOD - 1],
  ])('in the %s second of a step, accepts the codes of steps k-1..k+1 and refuses k-2 and k+2', async (_which, offset) => {
    const now = k * TOTP_PERIOD + offset;
    clockAt(now * 1000);
    for (const step of [k - 1, k, k + 1]) expect(await verifyTotp(secret, await codeAt(step * TOTP_PERIOD)), `step ${step - k}`).toBe(step);
    for (const step of [k - 2, k + 2])
      expect(await verifyTotp(secret, await codeAt(step * TOTP_PERIOD)), `step ${step - k}`).toBeUndefined();
  });

  it('refuses a code whose step was already used, even while it is still in the window', async () => {
    clockAt(k * TOTP_PERIOD * 1000);
    expect(await verifyTotp(secret, await codeAt((k + 1) * TOTP_PERIOD), k + 1)).toBeUndefined();
    expect(await verifyTotp(secret, await codeAt((k + 1) * TOTP_PERIOD), k)).toBe(k + 1);
  });
});

/** TwoFactorService on an in-memory two_fas row. */
function twoFactor(secret: string) {
  const box = new SecretBox(SECRET, 'two-factor-secret');
  const row: TwoFaEntity = {
    id: 1,
    userId: 7,
    secret: box.seal(secret),
    isEnabled: false,
    failedAttempts: 0,
    lockedUntil: null,
    lastUsedAt: null,
    createdAt: null,
    updatedAt: null,
    deletedAt: null,
  };
  const repo = {
    findByUser: async () => ({ ...row }),
    update: async (_id: number, changes: Partial<TwoFaEntity>) => void Object.assign(row, changes),
    reserveAttempt: async (_id: number, max: number) => {
      if (row.failedAttempts >= max) return false;
      row.failedAttempts++;
      return true;
    },
    enable: async (_id: number, lastUsedAt: Date) => {
      if (row.isEnabled) return false;
      Object.assign(row, { isEnabled: true, failedAttempts: 0, lockedUntil: null, lastUsedAt });
      return true;
    },
    unusedCodes: async () => [],
  };
  const options = { get: () => 'GW' } as unknown as OptionService;
  const service = new TwoFactorService(repo as unknown as TwoFactorRepository, {} as UserService, options, new UserHooks(), config);
  return { service, row };
}

describe('two-factor codes through the service', () => {
  const secret = 'KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU';
  const k = Math.floor(T0 / 1000 / TOTP_PERIOD);
  const codeOfStep = (step: number) => generate({ secret, epoch: step * TOTP_PERIOD });

  it('a next-step code (an authenticator 30 s fast) that turned 2FA on cannot be replayed to log in', async () => {
    clockAt(k * TOTP_PERIOD * 1000 + 5000);
    const { service } = twoFactor(secret);
    const ahead = await codeOfStep(k + 1);
    await service.enable(7, ahead);
    await expect(service.verify(7, ahead)).rejects.toThrow(WRONG_CODE);
    // The step after it is fresh.
    await expect(service.verify(7, await codeOfStep(k + 2))).rejects.toThrow(WRONG_CODE);
    advance(TOTP_PERIOD * 1000);
    await expect(service.verify(7, await codeOfStep(k + 2))).resolves.toBeUndefined();
  });

  it('a code used in the last moment of its step is recorded as that step, in whole seconds', async () => {
    // A DATETIME without fractions may round 29.7 s up to the next step (MySQL does), which would refuse the
    // next step's valid code: the recorded time is the step's first second.
    clockAt(k * TOTP_PERIOD * 1000 + TOTP_PERIOD * 1000 - 300);
    const { service, row } = twoFactor(secret);
    await service.enable(7, await codeOfStep(k));
    expect(row.lastUsedAt?.getTime()).toBe(k * TOTP_PERIOD * 1000);
    advance(300);
    await expect(service.verify(7, await codeOfStep(k + 1))).resolves.toBeUndefined();
    expect(row.lastUsedAt?.getTime()).toBe((k + 1) * TOTP_PERIOD * 1000);
  });

  it('five wrong codes lock the second factor for exactly five minutes', async () => {
    clockAt(T0);
    const { service, row } = twoFactor(secret);
    await service.enable(7, await codeOfStep(Math.floor(T0 / 1000 / TOTP_PERIOD)));
    for (let i = 0; i < 5; i++) await expect(service.verify(7, '000000')).rejects.toThrow();
    expect(row.lockedUntil?.getTime()).toBe(T0 + TWO_FA_LOCK_SECONDS * 1000);
    advance(TWO_FA_LOCK_SECONDS * 1000 - 1);
    const good = () => codeOfStep(Math.floor(Date.now() / 1000 / TOTP_PERIOD));
    await expect(service.verify(7, await good())).rejects.toThrow('locked until');
    advance(1);
    await expect(service.verify(7, await good())).resolves.toBeUndefined();
  });
});

function browser(cookie = '') {
  const cookies: string[] = [];
  const res = { append: (_name: string, value: string) => void cookies.push(value) } as unknown as Response;
  const req = { secure: false, headers: { cookie } } as unknown as Request;
  return {
    req,
    res,
    cookies,
    cookieValue: (name: string) =>
      cookies
        .map((c) => c.split(';')[0]!)
        .find((c) => c.startsWith(`${name}=`))!
        .slice(name.length + 1),
  };
}

describe('OAuth state (threat A4): usable for 10 minutes', () => {
  it('is taken 1 ms before the 10 minutes are up and refused at 10 minutes', async () => {
    clockAt(T0);
    const store = new OAuthStateStore(memoryKv());
    const issue = async () => {
      const b = browser();
      const state = await store.issue(b.req, b.res, { aff: '' });
      expect(b.cookies[0]).toContain('Max-Age=600;');
      return { state, req: browser(`oauth_state=${state}`).req };
    };
    const inside = await issue();
    const outside = await issue();
    advance(600_000 - 1);
    await expect(store.consume(inside.req, inside.state, 'github')).resolves.toEqual({ aff: '' });
    advance(1);
    await expect(store.consume(outside.req, outside.state, 'github')).rejects.toThrow('state is empty or invalid');
  });
});

describe('the half-done two-factor login: 5 minutes', () => {
  it('still names its user 1 ms before 5 minutes, and nothing at 5 minutes', async () => {
    clockAt(T0);
    const pending = new PendingLogins(memoryKv(), config);
    const b = browser();
    await pending.start(b.req, b.res, 7);
    const again = browser(`session=${b.cookieValue('session')}`).req;
    advance(5 * 60_000 - 1);
    expect(await pending.peek(again)).toBe(7);
    advance(1);
    expect(await pending.peek(again)).toBeUndefined();
    expect(await pending.finish(again)).toBe(false);
  });
});

describe('re-verification before sensitive actions: 5 minutes', () => {
  it('covers the session until 1 ms before 5 minutes, not at 5 minutes', async () => {
    clockAt(T0);
    const twoFactorCheck = { verify: vi.fn(async () => undefined) };
    const service = new SecureVerificationService(memoryKv(), twoFactorCheck as unknown as TwoFactorService, {} as UserService);
    const caller = { id: 7, sessionId: 'session-a' } as Principal;
    const proof = await service.verify(caller, '2fa', '123456', '');
    expect(proof.expires_at).toBe(T0 / 1000 + SECURE_VERIFICATION_SECONDS);
    advance(SECURE_VERIFICATION_SECONDS * 1000 - 1);
    expect(await service.isVerified(caller)).toBe(true);
    expect(await service.isVerified({ ...caller, sessionId: 'session-b' })).toBe(false);
    advance(1);
    expect(await service.isVerified(caller)).toBe(false);
  });
});

describe('console sessions: 30 days, the cookie and the row alike', () => {
  it('identifies the session until the second before it expires, and not from that second on', async () => {
    clockAt(T0);
    const rows = new Map<string, SessionEntity>();
    const sessions = {
      findById: async (id: string) => rows.get(id) ?? null,
      insert: async (row: SessionEntity) => void rows.set(row.id, row),
      delete: async (id: string) => void rows.delete(id),
    };
    const user = { id: 7, username: 'alice' } as UserEntity;
    const users = { findById: async (id: number) => (id === 7 ? user : null), findByAccessToken: async () => null };
    const service = new SessionService(sessions as unknown as SessionRepository, users as unknown as UserService, config, new UserHooks());
    const b = browser();
    await service.start(b.req, b.res, user);
    expect(b.cookies[0]).toContain(`Max-Age=${SESSION_MAX_AGE_SECONDS};`);
    const [row] = [...rows.values()];
    expect(row!.expiresAt).toBe(T0 / 1000 + SESSION_MAX_AGE_SECONDS);
    const again = browser(`${SESSION_COOKIE}=${b.cookieValue(SESSION_COOKIE)}`).req;
    advance(SESSION_MAX_AGE_SECONDS * 1000 - 1);
    expect((await service.identify(again))?.user.id).toBe(7);
    advance(1);
    expect(await service.identify(again)).toBeUndefined();
    // A forged cookie never reaches the row, whatever the time.
    const forged = newSessionToken('another secret');
    expect(await service.identify(browser(`${SESSION_COOKIE}=${forged.cookie}`).req)).toBeUndefined();
  });
});

describe('login failure windows (threats A2, F8): fixed, and immune to wall-clock steps', () => {
  const { max, windowSeconds } = ACCOUNT_IP_LIMIT;
  const exhaust = async (limiter: LoginLimiter, account: string) => {
    for (let i = 0; i < max; i++) await limiter.reserve(account, '203.0.113.9');
    await expect(limiter.reserve(account, '203.0.113.9')).rejects.toThrow(TOO_MANY_FAILURES);
  };

  it('stays locked 1 ms before the window ends and opens when it ends', async () => {
    clockAt(T0);
    const limiter = new LoginLimiter(memoryKv());
    await exhaust(limiter, 'name:bob');
    advance(windowSeconds * 1000 - 1);
    await expect(limiter.reserve('name:bob', '203.0.113.9')).rejects.toThrow(TOO_MANY_FAILURES);
    advance(1);
    await expect(limiter.reserve('name:bob', '203.0.113.9')).resolves.toBeUndefined();
  });

  it('a wall clock stepped forward an hour (NTP) does not reset the window', async () => {
    clockAt(T0);
    const limiter = new LoginLimiter(memoryKv());
    await exhaust(limiter, 'name:carol');
    vi.setSystemTime(Date.now() + 3600_000);
    await expect(limiter.reserve('name:carol', '203.0.113.9')).rejects.toThrow(TOO_MANY_FAILURES);
  });

  it('a wall clock stepped back an hour does not stretch the window past its length', async () => {
    clockAt(T0);
    const limiter = new LoginLimiter(memoryKv());
    await exhaust(limiter, 'name:dave');
    vi.setSystemTime(Date.now() - 3600_000);
    advance(windowSeconds * 1000);
    await expect(limiter.reserve('name:dave', '203.0.113.9')).resolves.toBeUndefined();
  });
});
