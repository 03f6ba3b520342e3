import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, outboundFetch, type AppConfig } from '@gw/core';
import { OptionService } from '@gw/option';
import { MailService } from './mail.service.js';
import { parseSetting } from './notify-setting.js';
import { KvStore } from './support/kv-store.js';
import type { UserEntity } from './user.entity.js';
import { UserRepository } from './user.repository.js';
import { formatQuota } from './quota-text.js';

export interface UserNotice {
  type: string;
  title: string;
  content: string;
  values: string[];
}

export const QUOTA_NOTIFY_INTERVAL_SECONDS = 2 * 3600;
const QUOTA_CHECK_INTERVAL_MS = 60_000;

/**
 * Low-balance notifications. `quotaChanged` is fire-and-forget (the relay calls it after each
 * charge); it never throws and never delays the caller.
 */
@Injectable()
export class UserNotifyService {
  private readonly logger = new Logger('UserNotify');
  private readonly lastChecked = new Map<number, number>();

  constructor(
    private readonly users: UserRepository,
    private readonly options: OptionService,
    private readonly mail: MailService,
    private readonly kv: KvStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Called after every charge. The balance is read fresh (off the caller's path), at most once a minute per
   * user, so a busy user costs one small read a minute rather than one per request.
   */
  quotaChanged(userId: number): void {
    const now = Date.now();
    if ((this.lastChecked.get(userId) ?? 0) > now - QUOTA_CHECK_INTERVAL_MS) return;
    if (this.lastChecked.size > 100_000) this.lastChecked.clear();
    this.lastChecked.set(userId, now);
    void this.check(userId).catch((error: Error) => this.logger.warn(`quota notice for user ${userId}: ${error.message}`));
  }

  /** The work behind quotaChanged; resolves to true when a notice was sent (for tests). */
  async check(userId: number, knownRemaining?: number): Promise<boolean> {
    const user = await this.users.findById(userId);
    if (!user) return false;
    const remainingQuota = knownRemaining ?? user.quota;
    const setting = parseSetting(user.setting);
    const threshold =
      typeof setting.quota_warning_threshold === 'number' ? setting.quota_warning_threshold : this.options.get('QuotaRemindThreshold');
    if (remainingQuota >= threshold) return false;
    // At most one notice per 2 hours per user, and at most NOTIFY_LIMIT_COUNT per window.
    if (!(await this.kv.setIfAbsent(`notify:quota:${userId}`, '1', QUOTA_NOTIFY_INTERVAL_SECONDS))) return false;
    const { limitCount, limitDurationMinutes } = this.config.notify;
    if ((await this.kv.hit(`notify:count:${userId}`, limitDurationMinutes * 60)) > limitCount) return false;

    const values = [formatQuota(this.options, remainingQuota), formatQuota(this.options, threshold)];
    const sent = await this.deliver(user, {
      type: 'quota_exceed',
      title: 'Your balance is running low',
      content: 'Your remaining quota is {{value}}, below the warning threshold {{value}}. Please top up.',
      values,
    });
    return sent !== 'none';
  }

  /**
   * Sends one notice by the user's chosen channel (spec 000 §9): an https webhook POST with the optional
   * Bearer secret and body {type, title, content, values, timestamp}, else an email with the values filled
   * in. Resolves to how it went out; 'none' when the user has no usable channel.
   */
  async deliver(user: Pick<UserEntity, 'email' | 'setting'>, notice: UserNotice): Promise<'webhook' | 'email' | 'none'> {
    const setting = parseSetting(user.setting);
    if (setting.notify_type === 'webhook' && setting.webhook_url) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (setting.webhook_secret) headers.authorization = `Bearer ${setting.webhook_secret}`;
      const res = await outboundFetch(setting.webhook_url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...notice, timestamp: Math.floor(Date.now() / 1000) }),
        httpsOnly: true,
        allowPrivate: this.options.get('AllowPrivateOutboundUrls'),
      });
      if (res.status < 200 || res.status >= 300) throw new Error(`webhook answered ${res.status}`);
      return 'webhook';
    }
    const to = setting.notification_email || user.email;
    if (!to || !this.mail.configured) return 'none';
    let text = notice.content;
    for (const value of notice.values) text = text.replace('{{value}}', value);
    await this.mail.send(to, `${this.options.get('SystemName')}: ${notice.title}`, `<p>${escapeHtml(text)}</p>`);
    return 'email';
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
