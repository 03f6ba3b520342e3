import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { NotFoundError } from '@gw/core';
import { nowSeconds } from '@gw/database';
import { PasswordHasher } from './password.js';
import { UserEntity, UserStatus } from './user.entity.js';
import { UserRepository, type BindingField } from './user.repository.js';
import { toSelfView, type SelfView } from './user.view.js';

export interface NewUser {
  username: string;
  password: string;
  displayName?: string;
  role?: number;
  quota?: number;
  group?: string;
  email?: string | null;
  inviterId?: number;
}

@Injectable()
export class UserService {
  constructor(
    private readonly users: UserRepository,
    private readonly passwords: PasswordHasher,
  ) {}

  findById(id: number): Promise<UserEntity | null> {
    return this.users.findById(id);
  }

  findByLoginName(name: string): Promise<UserEntity | null> {
    return this.users.findByLoginName(name);
  }

  findByAccessToken(token: string): Promise<UserEntity | null> {
    return this.users.findByAccessToken(token);
  }

  async self(id: number): Promise<SelfView> {
    const user = await this.users.findById(id);
    if (!user) throw new NotFoundError('user not found');
    return toSelfView(user);
  }

  async create(input: NewUser, manager?: EntityManager): Promise<UserEntity> {
    return this.users.insert(
      {
        username: input.username,
        password: await this.passwords.hash(input.password),
        displayName: input.displayName ?? input.username,
        role: input.role ?? 1,
        status: UserStatus.Enabled,
        quota: input.quota ?? 0,
        group: input.group ?? 'default',
        email: input.email ?? null,
        inviterId: input.inviterId ?? 0,
        createdAt: nowSeconds(),
      },
      manager,
    );
  }

  /** Live users (soft-deleted excluded), for the 2FA adoption rate. */
  countAll(): Promise<number> {
    return this.users.countAll();
  }

  countWithRole(role: number, manager?: EntityManager): Promise<number> {
    return this.users.countWithRole(role, manager);
  }

  findByBinding(field: BindingField, value: string): Promise<UserEntity | null> {
    return this.users.findByBinding(field, value);
  }

  /** True when any user (soft-deleted included) ever had this binding. */
  bindingTaken(field: BindingField, value: string): Promise<boolean> {
    return this.users.bindingTaken(field, value);
  }

  async bind(id: number, field: BindingField, value: string): Promise<void> {
    await this.users.update(id, { [field]: value });
  }

  /** Clears one binding column (admin unbinding GitHub, Discord, ...). */
  async unbind(id: number, field: BindingField): Promise<void> {
    await this.users.update(id, { [field]: null });
  }

  /** Removes the row for good (new-api's hard delete); the caller cleans what refers to it. */
  async hardDelete(id: number): Promise<void> {
    await this.users.hardDelete(id);
  }

  findByAffCode(code: string): Promise<UserEntity | null> {
    return this.users.findByAffCode(code);
  }

  usernameTaken(username: string): Promise<boolean> {
    return this.users.usernameTaken(username);
  }

  async recordLogin(id: number): Promise<void> {
    await this.users.update(id, { lastLoginAt: nowSeconds() });
  }
}
