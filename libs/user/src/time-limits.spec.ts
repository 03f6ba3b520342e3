import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DataSource } from 'typeorm';
import type { AppConfig, RedisService } from '@gw/core';
import type { OptionService } from '@gw/option';
import { AccountService } from './account.service.js';
import type { MailService } from './mail.service.js';
import { PasswordHasher } from './password.js';
import { KvStore } from './support/kv-store.js';
import type { UserHooks } from './user-events.js';
import type { UserEntity } from './user.entity.js';
import type { UserRepository } from './user.repository.js';

/**
 * Threat F8: the lifetimes of email codes and password-reset links, and the resend wait, just inside (accepted)
 * and just outside (refused). Only the clocks are fake (Date and performance.now); nothing sleeps.
 */
const T0 = Date.UTC(2030, 0, 15, 12, 0, 0);
const OPTIONS: Record<string, unknown> = {
  SystemName: 'GW',
  ServerAddress: 'https://gw.example.com',
  EmailDomainRestrictionEnabled: false,
  EmailAliasRestrictionEnabled: false,
};

function build() {
  const sent: string[] = [];
  const mail = { configured: true, send: vi.fn(async (_to: string, _subject: string, html: string) => void sent.push(html)) };
  const user = { id: 5, email: 'u@example.com', password: 'x' } as UserEntity;
  const users = {
    bindingTaken: vi.fn(async () => false),
    findByEmail: vi.fn(async (email: string) => (email === user.email ? user : null)),
    update: vi.fn(async () => undefined),
  };
  const service = new AccountService(
    {} as DataSource,
    users as unknown as UserRepository,
    { get: (key: string) => OPTIONS[key] } as unknown as OptionService,
    mail as unknown as MailService,
    new KvStore({ ready: undefined, key: (k: string) => k } as unknown as RedisService),
    { revokeSessions: vi.fn(async () => undefined) } as unknown as UserHooks,
    new PasswordHasher({ passwordHashCost: 4 } as AppConfig),
  );
  const lastCode = () => sent.at(-1)!.match(/<b>(\d{6})<\/b>/)![1]!;
  const lastResetToken = () => sent.at(-1)!.match(/token=([A-Za-z0-9_-]+)/)![1]!;
  return { service, users, lastCode, lastResetToken };
}

describe('account time limits', () => {
  afterEach(() => vi.useRealTimers());
  const clockAt = (ms: number) => vi.useFakeTimers({ toFake: ['Date', 'performance'], now: ms });
  const advance = (ms: number) => vi.advanceTimersByTime(ms);

  it('an email code is good 1 ms before 10 minutes and expired at 10 minutes', async () => {
    clockAt(T0);
    const { service, lastCode } = build();
    await service.sendVerification('in@example.com', '203.0.113.1');
    const inside = lastCode();
    await service.sendVerification('out@example.com', '203.0.113.2');
    const outside = lastCode();
    advance(10 * 60_000 - 1);
    expect(await service.checkCode('in@example.com', inside)).toBe(true);
    advance(1);
    expect(await service.checkCode('out@example.com', outside)).toBe(false);
  });

  it('a password-reset link works 1 ms before 15 minutes and not at 15 minutes', async () => {
    clockAt(T0);
    const early = build();
    await early.service.sendReset('u@example.com', '203.0.113.1');
    const late = build();
    await late.service.sendReset('u@example.com', '203.0.113.1');
    advance(15 * 60_000 - 1);
    await expect(early.service.resetPassword('u@example.com', early.lastResetToken())).resolves.toMatch(/^[A-Za-z0-9]{12}$/);
    advance(1);
    await expect(late.service.resetPassword('u@example.com', late.lastResetToken())).rejects.toThrow(
      'the reset link is invalid or has expired',
    );
    expect(late.users.update).not.toHaveBeenCalled();
  });

  it('a new code may be sent after exactly 30 seconds, not 1 ms sooner', async () => {
    clockAt(T0);
    const { service } = build();
    await service.sendVerification('wait@example.com', '203.0.113.1');
    advance(30_000 - 1);
    await expect(service.sendVerification('wait@example.com', '203.0.113.2')).rejects.toThrow('a code was sent recently');
    advance(1);
    await expect(service.sendVerification('wait@example.com', '203.0.113.3')).resolves.toBeUndefined();
  });

  it('a wall clock stepped back an hour neither keeps a code alive past 10 minutes nor a link past 15', async () => {
    clockAt(T0);
    const { service, lastCode, lastResetToken } = build();
    await service.sendVerification('skew@example.com', '203.0.113.1');
    const code = lastCode();
    await service.sendReset('u@example.com', '203.0.113.2');
    const token = lastResetToken();
    vi.setSystemTime(Date.now() - 3600_000);
    advance(15 * 60_000);
    expect(await service.checkCode('skew@example.com', code)).toBe(false);
    await expect(service.resetPassword('u@example.com', token)).rejects.toThrow('the reset link is invalid or has expired');
  });

  it('a wall clock stepped forward an hour does not end a code early', async () => {
    clockAt(T0);
    const { service, lastCode } = build();
    await service.sendVerification('ahead@example.com', '203.0.113.1');
    vi.setSystemTime(Date.now() + 3600_000);
    expect(await service.checkCode('ahead@example.com', lastCode())).toBe(true);
  });
});
