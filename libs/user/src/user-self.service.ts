import { Injectable } from '@nestjs/common';
import { assertOutboundUrl, BusinessError, ForbiddenError, NotFoundError, Role, type Principal } from '@gw/core';
import type { UpdateSelfRequest, UserSettingRequest } from '@gw/contracts';
import { OptionService } from '@gw/option';
import { groupInfos, usableGroups, type GroupInfo } from './groups.js';
import { PasswordHasher, verifyPassword } from './password.js';
import { newAccessToken, randomAlnum } from './support/random.js';
import type { UserEntity } from './user.entity.js';
import { BalanceEvents } from './balance/balance-events.js';
import { UserHooks } from './user-events.js';
import { parseSetting } from './notify-setting.js';
import { formatQuota } from './quota-text.js';
import { UserRepository } from './user.repository.js';
import { PASSWORD_TOO_SHORT } from './user-admin.service.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** What a logged-in user does to their own account. */
@Injectable()
export class UserSelfService {
  constructor(
    private readonly users: UserRepository,
    private readonly options: OptionService,
    private readonly hooks: UserHooks,
    private readonly balances: BalanceEvents,
    private readonly passwords: PasswordHasher,
  ) {}

  private async load(id: number): Promise<UserEntity> {
    const user = await this.users.findById(id);
    if (!user) throw new NotFoundError('user not found');
    return user;
  }

  async update(caller: Principal, input: UpdateSelfRequest): Promise<void> {
    const user = await this.load(caller.id);
    const changes: Partial<UserEntity> = {};
    if (input.display_name !== undefined) changes.displayName = input.display_name.trim() || user.username;
    const password = input.password ?? '';
    if (password) {
      if (password.length < 8) throw new BusinessError(PASSWORD_TOO_SHORT);
      if (!input.original_password || !(await verifyPassword(input.original_password, user.password))) {
        throw new BusinessError('the original password is wrong');
      }
      changes.password = await this.passwords.hash(password);
      // The access token is another way in: it ends with the other sessions, unless it is what the caller is using.
      if (caller.sessionId) changes.accessToken = null;
    }
    if (Object.keys(changes).length) await this.users.update(user.id, changes);
    // A new password ends every other session; the caller's own stays.
    if (changes.password) await this.hooks.revokeSessions(user.id, caller.sessionId);
  }

  async deleteSelf(caller: Principal): Promise<void> {
    const user = await this.load(caller.id);
    if (user.role === Role.Root) throw new ForbiddenError('the super admin account cannot be deleted');
    await this.users.softDelete(user.id);
    this.hooks.userChanged(user.id);
    await this.hooks.revokeSessions(user.id);
  }

  async models(caller: Principal): Promise<string[]> {
    const user = await this.load(caller.id);
    return this.hooks.modelsForGroups(Object.keys(usableGroups(this.options, user.group)));
  }

  async groups(caller: Principal): Promise<Record<string, GroupInfo>> {
    const user = await this.load(caller.id);
    return groupInfos(this.options, user.group);
  }

  publicGroups(): Record<string, GroupInfo> {
    return groupInfos(this.options);
  }

  /** Replaces the console access token and returns it (the only time it is shown). */
  async regenerateToken(caller: Principal): Promise<string> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const token = newAccessToken();
      try {
        await this.users.update(caller.id, { accessToken: token });
        return token;
      } catch {
        // Unique collision (practically impossible): try again.
      }
    }
    throw new BusinessError('failed to generate the access token, try again');
  }

  async affCode(caller: Principal): Promise<string> {
    const user = await this.load(caller.id);
    if (user.affCode) return user.affCode;
    for (let attempt = 0; attempt < 5; attempt++) {
      await this.users.setAffCodeIfEmpty(user.id, randomAlnum(attempt < 3 ? 6 : 10));
      const fresh = await this.load(user.id);
      if (fresh.affCode) return fresh.affCode;
    }
    throw new BusinessError('failed to create the invite code, try again');
  }

  async affTransfer(caller: Principal, quota: number): Promise<void> {
    const unit = this.options.get('QuotaPerUnit');
    if (quota < unit) throw new BusinessError(`transfer amount minimum is ${formatQuota(this.options, Math.ceil(unit))}`);
    if (!(await this.users.transferAff(caller.id, quota))) throw new BusinessError('invite earnings are insufficient');
    this.balances.changed({ userId: caller.id });
  }

  async updateSetting(caller: Principal, input: UserSettingRequest): Promise<void> {
    const user = await this.load(caller.id);
    if (input.notify_type === 'webhook') {
      if (!input.webhook_url) throw new BusinessError('webhook URL cannot be empty');
      if (!input.webhook_url.startsWith('https://')) throw new BusinessError('webhook URL must start with https://');
    }
    if (input.webhook_url) {
      await assertOutboundUrl(input.webhook_url, { httpsOnly: true, allowPrivate: this.options.get('AllowPrivateOutboundUrls') });
    }
    if (input.notification_email && !EMAIL.test(input.notification_email)) throw new BusinessError('invalid email address');
    // Quota is whole units everywhere; a fractional threshold would never compare as the user meant.
    if (input.quota_warning_threshold !== undefined && !Number.isSafeInteger(input.quota_warning_threshold)) {
      throw new BusinessError('quota_warning_threshold must be an integer');
    }
    const setting = {
      notify_type: input.notify_type,
      quota_warning_threshold: input.quota_warning_threshold ?? this.options.get('QuotaRemindThreshold'),
      webhook_url: input.webhook_url,
      // GET /api/user/self never shows the saved secret, so a form saved without a new one keeps it.
      webhook_secret: input.clear_webhook_secret ? '' : input.webhook_secret || parseSetting(user.setting).webhook_secret || '',
      notification_email: input.notification_email,
      accept_unset_model_ratio_model: input.accept_unset_model_ratio_model,
      record_ip_log: input.record_ip_log,
    };
    await this.users.update(caller.id, { setting: JSON.stringify(setting) });
    this.hooks.userChanged(caller.id);
  }
}
