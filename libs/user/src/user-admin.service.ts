import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BusinessError, ForbiddenError, NotFoundError, Role, toPage, type Page, type PageRequest, type Principal } from '@gw/core';
import type { AdminUserView, CreateUserRequest, ManageUserRequest, UpdateUserRequest } from '@gw/contracts';
import { OptionService } from '@gw/option';
import { PasswordHasher } from './password.js';
import { formatQuota } from './quota-text.js';
import { UserStatus, type UserEntity } from './user.entity.js';
import { BalanceEvents } from './balance/balance-events.js';
import { UserHooks } from './user-events.js';
import { UserRepository } from './user.repository.js';
import { UserService } from './user.service.js';
import { toAdminView } from './user.view.js';

export const PASSWORD_TOO_SHORT = 'password length must not be less than 8';

/** User administration (admin ≥ 10), with new-api's role rules and threats Z3/Z4. */
@Injectable()
export class UserAdminService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UserRepository,
    private readonly userService: UserService,
    private readonly hooks: UserHooks,
    private readonly balances: BalanceEvents,
    private readonly passwords: PasswordHasher,
    private readonly options: OptionService,
  ) {}

  async list(request: PageRequest): Promise<Page<AdminUserView>> {
    const [rows, total] = await this.users.list(request.offset, request.pageSize);
    return toPage(rows.map(toAdminView), total, request);
  }

  async search(keyword: string, group: string, request: PageRequest): Promise<Page<AdminUserView>> {
    const [rows, total] = await this.users.search(keyword.trim(), group.trim(), request.offset, request.pageSize);
    return toPage(rows.map(toAdminView), total, request);
  }

  async get(caller: Principal, id: number): Promise<AdminUserView> {
    const user = await this.users.findByIdWithDeleted(id);
    if (!user) throw new NotFoundError('user does not exist');
    if (caller.role !== Role.Root && user.role >= caller.role) {
      throw new ForbiddenError('no permission to access users of the same or higher role');
    }
    return toAdminView(user);
  }

  async create(input: CreateUserRequest): Promise<void> {
    if (!input.username || !input.password) throw new BusinessError('username and password cannot be empty');
    if (input.password.length < 8) throw new BusinessError(PASSWORD_TOO_SHORT);
    if (await this.users.usernameTaken(input.username)) throw new BusinessError('username already exists');
    await this.userService.create({
      username: input.username,
      password: input.password,
      displayName: input.display_name || input.username,
      role: Role.User,
    });
  }

  async update(caller: Principal, input: UpdateUserRequest): Promise<void> {
    const user = await this.users.findById(input.id);
    if (!user) throw new NotFoundError('user does not exist');
    if (caller.role !== Role.Root && user.role >= caller.role) {
      throw new ForbiddenError('no permission to update users of the same or higher role');
    }
    const changes: Partial<UserEntity> = {};
    if (input.username !== undefined && input.username !== user.username) {
      if (await this.users.usernameTaken(input.username)) throw new BusinessError('username already exists');
      changes.username = input.username;
    }
    if (input.display_name !== undefined) changes.displayName = input.display_name;
    if (input.group !== undefined) changes.group = input.group;
    if (input.quota !== undefined) changes.quota = input.quota;
    if (input.remark !== undefined) changes.remark = input.remark;
    const newPassword = input.password ?? '';
    if (newPassword) {
      if (newPassword.length < 8) throw new BusinessError(PASSWORD_TOO_SHORT);
      changes.password = await this.passwords.hash(newPassword);
      // A token handed out under the old password goes with the old sessions.
      changes.accessToken = null;
    }
    if (Object.keys(changes).length) await this.save(caller, user, changes);
    this.hooks.userChanged(user.id);
    if (changes.quota !== undefined) this.balances.changed({ userId: user.id });
    if (changes.password) await this.hooks.revokeSessions(user.id);
  }

  /** Applies an edit; a new balance is recorded for the user's audit trail in the same transaction. */
  private async save(caller: Principal, user: UserEntity, changes: Partial<UserEntity>): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.users.update(user.id, changes, manager);
      if (changes.quota === undefined || changes.quota === user.quota) return;
      await this.hooks.audit(
        {
          userId: user.id,
          username: changes.username ?? user.username,
          kind: 'manage',
          content: `an administrator changed the quota from ${formatQuota(this.options, user.quota)} to ${formatQuota(this.options, changes.quota)}`,
          admin: { id: caller.id, username: caller.username },
        },
        manager,
      );
    });
  }

  async manage(caller: Principal, input: ManageUserRequest): Promise<{ status: number; role: number }> {
    const user = await this.users.findById(input.id);
    if (!user) throw new NotFoundError('user does not exist');
    if (user.role >= caller.role) throw new ForbiddenError('no permission to manage users of the same or higher role');
    const changes: Partial<UserEntity> = {};
    switch (input.action) {
      case 'disable':
        if (user.role === Role.Root) throw new ForbiddenError('the super admin cannot be disabled');
        changes.status = UserStatus.Disabled;
        changes.accessToken = null;
        break;
      case 'enable':
        changes.status = UserStatus.Enabled;
        break;
      case 'delete':
        if (user.role === Role.Root) throw new ForbiddenError('the super admin cannot be deleted');
        await this.users.softDelete(user.id);
        this.hooks.userChanged(user.id);
        await this.hooks.revokeSessions(user.id);
        return { status: user.status, role: user.role };
      case 'promote':
        if (caller.role !== Role.Root) throw new ForbiddenError('only the super admin can promote users to admin');
        if (user.role >= Role.Admin) throw new BusinessError('the user is already an admin');
        changes.role = Role.Admin;
        break;
      case 'demote':
        if (user.role === Role.Root) throw new ForbiddenError('the super admin cannot be demoted');
        if (user.role === Role.User) throw new BusinessError('the user is already a common user');
        changes.role = Role.User;
        break;
    }
    await this.users.update(user.id, changes);
    this.hooks.userChanged(user.id);
    if (input.action === 'disable') await this.hooks.revokeSessions(user.id);
    return { status: changes.status ?? user.status, role: changes.role ?? user.role };
  }
}
