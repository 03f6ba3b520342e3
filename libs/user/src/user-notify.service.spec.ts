import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppConfig, RedisService } from '@gw/core';
import type { OptionService } from '@gw/option';
import type { MailService } from './mail.service.js';
import { KvStore } from './support/kv-store.js';
import type { UserEntity } from './user.entity.js';
import type { UserRepository } from './user.repository.js';
import { UserNotifyService } from './user-notify.service.js';

const fetchSpy = vi.hoisted(() => ({ calls: [] as { url: string; options: any }[], real: undefined as any }));
vi.mock('@gw/core', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@gw/core')>();
  return {
    ...actual,
    outboundFetch: async (url: string, options: any) => {
      // https URLs on the fake host are answered here; everything else goes through the real guard.
      if (url.startsWith('https://hooks.example.test/')) {
        fetchSpy.calls.push({ url, options });
        return { status: 200, headers: {}, text: 'ok', json: () => ({}) };
      }
      return actual.outboundFetch(url, options);
    },
  };
});

const OPTIONS: Record<string, unknown> = {
  QuotaRemindThreshold: 1000,
  QuotaPerUnit: 500000,
  DisplayInCurrencyEnabled: true,
  SystemName: 'GW',
  AllowPrivateOutboundUrls: true,
};

function build(user: Partial<UserEntity>, options: Record<string, unknown> = {}, limitCount = 10) {
  const users = { findById: vi.fn(async () => ({ id: 7, email: 'u@example.com', setting: null, ...user }) as UserEntity) };
  const opts = { get: (key: string) => ({ ...OPTIONS, ...options })[key] } as unknown as OptionService;
  const mail = { configured: true, send: vi.fn(async (_to: string, _subject: string, _html: string) => undefined) };
  const kv = new KvStore({ client: undefined } as unknown as RedisService);
  const config = { notify: { limitCount, limitDurationMinutes: 10 } } as AppConfig;
  const service = new UserNotifyService(users as unknown as UserRepository, opts, mail as unknown as MailService, kv, config);
  return { service, mail, users };
}

describe('UserNotifyService', () => {
  let server: Server;
  let url: string;
  const received: { auth?: string; body: any }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ auth: req.headers.authorization, body: JSON.parse(body) });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('mails when the balance is below the default threshold, at most once per 2 hours', async () => {
    const { service, mail } = build({});
    expect(await service.check(7, 5000)).toBe(false);
    expect(await service.check(7, 999)).toBe(true);
    expect(mail.send).toHaveBeenCalledTimes(1);
    expect(mail.send.mock.calls[0]![0]).toBe('u@example.com');
    expect(mail.send.mock.calls[0]![2]).toContain('$0.001998');
    expect(await service.check(7, 10)).toBe(false);
    expect(mail.send).toHaveBeenCalledTimes(1);
  });

  it("uses the user's threshold and notification email", async () => {
    const { service, mail } = build({
      setting: JSON.stringify({ notify_type: 'email', quota_warning_threshold: 100, notification_email: 'n@example.com' }),
    });
    expect(await service.check(7, 500)).toBe(false);
    expect(await service.check(7, 50)).toBe(true);
    expect(mail.send.mock.calls[0]![0]).toBe('n@example.com');
  });

  it('respects NOTIFY_LIMIT_COUNT', async () => {
    const { service } = build({}, {}, 0);
    expect(await service.check(7, 1)).toBe(false);
  });

  it('posts the webhook with the bearer secret and the spec body (https only outside tests)', async () => {
    const setting = { notify_type: 'webhook', webhook_url: url, webhook_secret: 'hook-secret', quota_warning_threshold: 1000 };
    const { service } = build({ setting: JSON.stringify(setting) });
    // http is refused: webhooks are https only.
    await expect(service.check(7, 1)).rejects.toThrow('https');
    const { service: second } = build({ setting: JSON.stringify({ ...setting, webhook_url: url.replace('http:', 'https:') }) });
    await expect(second.check(7, 1)).rejects.toThrow();
    expect(received).toHaveLength(0);
  });

  it('sends the webhook body {type, title, content, values, timestamp} with the bearer secret', async () => {
    const setting = { notify_type: 'webhook', webhook_url: 'https://hooks.example.test/h', webhook_secret: 'hook-secret' };
    const { service, mail } = build({ setting: JSON.stringify(setting) });
    expect(await service.check(7, 1)).toBe(true);
    expect(mail.send).not.toHaveBeenCalled();
    const call = fetchSpy.calls[0]!;
    expect(call.options).toMatchObject({ method: 'POST', httpsOnly: true, headers: { authorization: 'Bearer hook-secret' } });
    const body = JSON.parse(call.options.body);
    expect(body).toMatchObject({
      type: 'quota_exceed',
      title: expect.any(String),
      content: expect.stringContaining('{{value}}'),
      values: ['$0.000002', '$0.002000'],
    });
    expect(body.timestamp).toBeGreaterThan(1_700_000_000);
    expect(await service.check(7, 1)).toBe(false);
    expect(fetchSpy.calls).toHaveLength(1);
  });

  it('refuses a private webhook address unless allowed', async () => {
    const setting = { notify_type: 'webhook', webhook_url: 'https://127.0.0.1:1/hook' };
    const { service } = build({ setting: JSON.stringify(setting) }, { AllowPrivateOutboundUrls: false });
    await expect(service.check(7, 1)).rejects.toThrow('private');
  });

  it('quotaChanged never throws', () => {
    const { service, users } = build({});
    users.findById.mockRejectedValueOnce(new Error('db down'));
    expect(() => service.quotaChanged(7)).not.toThrow();
  });

  it('quotaChanged reads the fresh balance, at most once a minute per user', async () => {
    const { service, users, mail } = build({ quota: 10 });
    service.quotaChanged(7);
    service.quotaChanged(7);
    service.quotaChanged(7);
    await vi.waitFor(() => expect(mail.send).toHaveBeenCalledTimes(1));
    expect(users.findById).toHaveBeenCalledTimes(1);
    expect(mail.send.mock.calls[0]![2]).toContain('$0.000020');
  });
});
