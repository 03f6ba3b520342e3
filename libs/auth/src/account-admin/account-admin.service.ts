import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { BusinessError, ForbiddenError, NotFoundError, Role, type Principal } from '@gw/core';
import { UserHooks, UserService, type BindingField, type UserEntity } from '@gw/user';
import { CheckinEntity } from '../checkin/checkin.entity.js';
import { UserOAuthBindingEntity } from '../custom-oauth/custom-oauth.entity.js';
import { CustomOAuthRepository } from '../custom-oauth/custom-oauth.repository.js';
import { PasskeyCredentialEntity } from '../passkey/passkey.entity.js';
import { TwoFaBackupCodeEntity, TwoFaEntity } from '../two-factor/two-factor.entity.js';

/** new-api's `binding_type` values for `DELETE /api/user/:id/bindings/:binding_type`. */
const BUILT_IN: Record<string, BindingField> = {
  email: 'email',
  github: 'githubId',
  discord: 'discordId',
  oidc: 'oidcId',
  wechat: 'wechatId',
  telegram: 'telegramId',
  linuxdo: 'linuxDoId',
};

export interface BindingView {
  provider_id: number;
  provider_name: string;
  provider_slug: string;
  provider_icon: string;
  provider_user_id: string;
  created_at: string | null;
}

/** Custom-provider bindings (self and admin), built-in unbinding and the hard delete of a user. */
@Injectable()
export class AccountAdminService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly repo: CustomOAuthRepository,
    private readonly users: UserService,
    private readonly hooks: UserHooks,
  ) {}

  async bindings(userId: number): Promise<BindingView[]> {
    const [rows, providers] = await Promise.all([this.repo.bindingsOfUser(userId), this.repo.list()]);
    const byId = new Map(providers.map((p) => [p.id, p]));
    return rows.map((b) => {
      const p = byId.get(b.providerId);
      return {
        provider_id: b.providerId,
        provider_name: p?.name ?? '',
        provider_slug: p?.slug ?? '',
        provider_icon: p?.icon ?? '',
        provider_user_id: b.providerUserId,
        created_at: b.createdAt?.toISOString() ?? null,
      };
    });
  }

  async unbind(userId: number, providerId: number): Promise<void> {
    if (!(await this.repo.unbind(userId, providerId))) throw new BusinessError('binding not found');
  }

  async adminBindings(caller: Principal, userId: number): Promise<BindingView[]> {
    await this.manageable(caller, userId);
    return this.bindings(userId);
  }

  async adminUnbind(caller: Principal, userId: number, providerId: number): Promise<void> {
    await this.manageable(caller, userId);
    await this.unbind(userId, providerId);
  }

  async adminClearBuiltIn(caller: Principal, userId: number, type: string): Promise<void> {
    const field = BUILT_IN[type.toLowerCase()];
    if (!field) throw new BusinessError(`unknown binding type; use one of ${Object.keys(BUILT_IN).join(', ')}`);
    const user = await this.manageable(caller, userId);
    if (!user[field]) throw new BusinessError('the user has no such binding');
    await this.users.unbind(userId, field);
    this.hooks.userChanged(userId);
  }

  /** Removes a user for good with its sessions, 2FA, passkeys, check-ins and bindings. Root cannot be deleted. */
  async hardDelete(caller: Principal, userId: number): Promise<void> {
    if (caller.id === userId) throw new ForbiddenError('you cannot delete yourself');
    const user = await this.manageable(caller, userId);
    if (user.role === Role.Root) throw new ForbiddenError('the super admin cannot be deleted');
    await this.hooks.revokeSessions(userId);
    await this.db.transaction(async (m) => {
      for (const entity of [TwoFaBackupCodeEntity, TwoFaEntity, PasskeyCredentialEntity, CheckinEntity, UserOAuthBindingEntity]) {
        await m.getRepository(entity).delete({ userId });
      }
    });
    await this.users.hardDelete(userId);
    this.hooks.userChanged(userId);
  }

  /** The target exists and sits below the caller (root may manage anyone but itself as a target of deletion). */
  private async manageable(caller: Principal, userId: number): Promise<UserEntity> {
    const user = await this.users.findById(userId);
    if (!user) throw new NotFoundError('user does not exist');
    if (caller.role !== Role.Root && user.role >= caller.role)
      throw new ForbiddenError('no permission to manage users of the same or higher role');
    return user;
  }
}
