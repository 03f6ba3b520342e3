import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@gw/core';
import { UserService, type UserEntity } from '@gw/user';
import type { UserSnapshot } from './relay-identity.js';

interface Cached {
  /** null: the user does not exist (or was deleted); cached too, so such keys do not reach the database. */
  snapshot: UserSnapshot | null;
  loadedAt: number;
}

/**
 * Users as the relay needs them, loaded lazily (one read on first use), re-read after
 * SYNC_FREQUENCY seconds, and dropped at once when the user module reports a change.
 */
@Injectable()
export class UserSnapshots {
  private readonly cache = new Map<number, Cached>();
  private readonly loading = new Map<number, Promise<UserSnapshot | null>>();
  /** Bumped on invalidation: a read that started before it must not store its (older) result. */
  private readonly epochs = new Map<number, number>();

  constructor(
    private readonly users: UserService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async get(id: number): Promise<UserSnapshot | null> {
    const cached = this.cache.get(id);
    if (cached && Date.now() - cached.loadedAt < this.config.sync.frequencySeconds * 1000) return cached.snapshot;
    let pending = this.loading.get(id);
    if (!pending) {
      pending = this.load(id).finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    return pending;
  }

  invalidate(id: number): void {
    this.cache.delete(id);
    this.loading.delete(id);
    this.epochs.set(id, (this.epochs.get(id) ?? 0) + 1);
  }

  /** Every cached user is read again on next use (changes may have been missed while Redis was away). */
  invalidateAll(): void {
    for (const id of [...this.cache.keys(), ...this.loading.keys()]) this.invalidate(id);
  }

  /** Keeps the cached balance roughly in step with spending between reloads. */
  spend(id: number, quota: number): void {
    const snapshot = this.cache.get(id)?.snapshot;
    if (snapshot) snapshot.quota -= quota;
  }

  private async load(id: number): Promise<UserSnapshot | null> {
    const epoch = this.epochs.get(id) ?? 0;
    const user = await this.users.findById(id);
    const snapshot = user ? toUserSnapshot(user) : null;
    if ((this.epochs.get(id) ?? 0) === epoch) this.cache.set(id, { snapshot, loadedAt: Date.now() });
    return snapshot;
  }
}

export function toUserSnapshot(user: UserEntity): UserSnapshot {
  const setting = parseSetting(user.setting);
  return {
    id: user.id,
    username: user.username,
    role: user.role,
    status: user.status,
    group: user.group || 'default',
    quota: user.quota,
    setting: { acceptUnsetModelRatioModel: setting.accept_unset_model_ratio_model === true, recordIpLog: setting.record_ip_log === true },
  };
}

function parseSetting(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
