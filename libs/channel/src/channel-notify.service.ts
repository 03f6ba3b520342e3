import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { APP_CONFIG, Role, type AppConfig } from '@gw/core';
import { KvStore, UserEntity, UserNotifyService } from '@gw/user';

export interface ChannelNotice {
  channelId: number;
  channelName: string;
  disabled: boolean;
  reason: string;
}

/**
 * Tells root when a channel is disabled or enabled automatically and when a console test of all
 * channels ends (new-api NotifyRootUser): by the webhook or email of root's notification settings, at
 * most NOTIFY_LIMIT_COUNT notices per NOTIFICATION_LIMIT_DURATION_MINUTE. Never throws into the caller.
 */
@Injectable()
export class ChannelNotifyService {
  private readonly logger = new Logger('ChannelNotify');

  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly notifier: UserNotifyService,
    private readonly kv: KvStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A channel was disabled or enabled automatically. */
  notify(notice: ChannelNotice): void {
    const what = notice.disabled ? 'disabled' : 'enabled';
    this.logger.warn(`channel #${notice.channelId} was ${what} automatically${notice.reason ? `: ${notice.reason}` : ''}`);
    const title = `Channel ${notice.channelName} (#${notice.channelId}) was ${what} automatically`;
    const content = notice.disabled
      ? `Channel "${notice.channelName}" (#${notice.channelId}) was disabled: ${notice.reason}`
      : `Channel "${notice.channelName}" (#${notice.channelId}) passed its test and was enabled again.`;
    this.post(title, content);
  }

  /** A test of all channels started from the console has finished (new-api notifies root too). */
  testsFinished(summary: { tested: number; failed: number; disabled: number; enabled: number }): void {
    const content = `${summary.tested} channels tested: ${summary.failed} failed, ${summary.disabled} disabled, ${summary.enabled} enabled again.`;
    this.post('Channel test finished', content);
  }

  private post(title: string, content: string): void {
    void this.send(title, content).catch((error: Error) => this.logger.warn(`notice "${title}": ${error.message}`));
  }

  /** Sends one notice to root; resolves to how it went out ('none' when it did not). */
  async send(title: string, content: string): Promise<'webhook' | 'email' | 'none'> {
    const root = await this.users.findOne({ where: { role: Role.Root }, order: { id: 'ASC' } });
    if (!root) return 'none';
    const { limitCount, limitDurationMinutes } = this.config.notify;
    if ((await this.kv.hit(`notify:channel:${root.id}`, limitDurationMinutes * 60)) > limitCount) return 'none';
    return this.notifier.deliver(root, { type: 'channel_update', title, content, values: [] });
  }
}
