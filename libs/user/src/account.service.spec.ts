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

const OPTIONS: Record<string, unknown> = {
  SystemName: 'GW',
  ServerAddress: 'https://gw.example.com',
  EmailDomainRestrictionEnabled: false,
  EmailAliasRestrictionEnabled: false,
};

function build() {
  const sent: { to: string; html: string }[] = [];
  const mail = { configured: true, send: vi.fn(async (to: string, _subject: string, html: string) => void sent.push({ to, html })) };
  const user = { id: 5, email: 'u@example.com', password: 'x' } as UserEntity;
  const users = {
    bindingTaken: vi.fn(async () => false),
    findByEmail: vi.fn(async (email: string) => (email === user.email ? user : null)),
    update: vi.fn(async () => undefined),
  };
  const hooks = { revokeSessions: vi.fn(async () => undefined) };
  const options = { get: (key: string) => OPTIONS[key] } as unknown as OptionService;
  const kv = new KvStore({ client: undefined } as unknown as RedisService);
  const service = new AccountService(
    {} as DataSource,
    users as unknown as UserRepository,
    options,
    mail as unknown as MailService,
    kv,
    hooks as unknown as UserHooks,
    new PasswordHasher({ passwordHashCost: 4 } as AppConfig),
  );
  const lastCode = () => sent.at(-1)!.html.match(/<b>(\d{6})<\/b>/)![1]!;
  const lastResetToken = () => sent.at(-1)!.html.match(/token=([A-Za-z0-9_-]+)/)![1]!;
  return { service, users, hooks, lastCode, lastResetToken };
}

describe('AccountService codes and reset links', () => {
  afterEach(() => vi.useRealTimers());

  it('accepts an email code for 10 minutes, then refuses it', async () => {
    vi.useFakeTimers();
    const { service, lastCode } = build();
    await service.sendVerification('a@example.com', '203.0.113.1');
    const code = lastCode();
    vi.advanceTimersByTime(10 * 60 * 1000 + 1000);
    expect(await service.checkCode('a@example.com', code)).toBe(false);
  });

  it('accepts a valid code once', async () => {
    const { service, lastCode } = build();
    await service.sendVerification('b@example.com', '203.0.113.1');
    const code = lastCode();
    expect(await service.checkCode('b@example.com', code)).toBe(true);
    expect(await service.checkCode('b@example.com', code)).toBe(false);
  });

  it('burns the code after five wrong guesses', async () => {
    const { service, lastCode } = build();
    await service.sendVerification('c@example.com', '203.0.113.1');
    const code = lastCode();
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expect(await service.checkCode('c@example.com', wrong)).toBe(false);
    expect(await service.checkCode('c@example.com', code)).toBe(false);
  });

  it('lets a new code be sent after the 30 second resend wait', async () => {
    vi.useFakeTimers();
    const { service } = build();
    await service.sendVerification('d@example.com', '203.0.113.1');
    await expect(service.sendVerification('d@example.com', '203.0.113.2')).rejects.toThrow(
      'a code was sent recently, try again in 30 seconds',
    );
    vi.advanceTimersByTime(30_001);
    await expect(service.sendVerification('d@example.com', '203.0.113.2')).resolves.toBeUndefined();
  });

  it('honours a reset link for 15 minutes only', async () => {
    vi.useFakeTimers();
    const { service, lastResetToken, users, hooks } = build();
    await service.sendReset('u@example.com', '203.0.113.1');
    const token = lastResetToken();
    vi.advanceTimersByTime(15 * 60 * 1000 + 1000);
    await expect(service.resetPassword('u@example.com', token)).rejects.toThrow('the reset link is invalid or has expired');
    expect(users.update).not.toHaveBeenCalled();
    vi.advanceTimersByTime(30_001);
    await service.sendReset('u@example.com', '203.0.113.3');
    const fresh = lastResetToken();
    const password = await service.resetPassword('u@example.com', fresh);
    expect(password).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(hooks.revokeSessions).toHaveBeenCalledWith(5);
  });
});
