import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * One row of a user's audit trail (new-api's log types 3 and 4): `manage` for what an administrator did to
 * the account, `system` for what the gateway granted by itself (registration and invite gifts).
 */
export interface UserAuditEntry {
  userId: number;
  username: string;
  kind: 'manage' | 'system';
  content: string;
  /** Who acted, for `manage` rows: shown to administrators only. */
  admin?: { id: number; username: string };
}

type RevokeHandler = (userId: number, exceptSessionId?: string) => Promise<void>;
type ModelsProvider = (groups: string[]) => string[] | Promise<string[]>;
type UserChangedListener = (userId: number) => void;
type AuditWriter = (entry: UserAuditEntry, transaction: EntityManager) => Promise<void>;
type RegisteredListener = (user: { id: number; username: string }) => Promise<void>;

/**
 * Hooks that let modules above `user` plug in without a dependency cycle: `@gw/auth` registers how
 * sessions are ended; `@gw/channel` registers which models a set of groups may use; `@gw/log` registers
 * how audit rows are written.
 */
@Injectable()
export class UserHooks {
  private readonly logger = new Logger('UserHooks');
  private revokeHandler?: RevokeHandler;
  private modelsProvider?: ModelsProvider;
  private auditWriter?: AuditWriter;
  private registeredListener?: RegisteredListener;
  private readonly changedListeners = new Set<UserChangedListener>();

  onRevokeSessions(handler: RevokeHandler): void {
    this.revokeHandler = handler;
  }

  /** Called by the channel module: `hooks.provideModels((groups) => router.modelsForGroups(groups))`. */
  provideModels(provider: ModelsProvider): void {
    this.modelsProvider = provider;
  }

  /** Called by the log module: `hooks.onAudit((entry, transaction) => logs.recordNow(..., transaction))`. */
  onAudit(writer: AuditWriter): void {
    this.auditWriter = writer;
  }

  /**
   * Writes an audit row in the caller's transaction, so the row and the change it describes commit or
   * roll back together; a failed write fails the change rather than leaving it unrecorded.
   */
  async audit(entry: UserAuditEntry, transaction: EntityManager): Promise<void> {
    if (!this.auditWriter) {
      this.logger.warn(`no audit writer registered; not recorded for user ${entry.userId}: ${entry.content}`);
      return;
    }
    await this.auditWriter(entry, transaction);
  }

  /** Called by the token module when GENERATE_DEFAULT_TOKEN is on: each password sign-up gets a first token. */
  onPasswordRegistered(listener: RegisteredListener): void {
    this.registeredListener = listener;
  }

  /** A user signed up with a password (POST /api/user/register), after the account committed. */
  async passwordRegistered(user: { id: number; username: string }): Promise<void> {
    await this.registeredListener?.(user);
  }

  /** Called by caches of user state (e.g. `@gw/token`'s relay lookup) to drop a user on change. */
  onUserChanged(listener: UserChangedListener): void {
    this.changedListeners.add(listener);
  }

  /** A user's status, role, group, quota, setting or existence changed: cached copies must go. */
  userChanged(userId: number): void {
    for (const listener of this.changedListeners) {
      try {
        listener(userId);
      } catch (error) {
        this.logger.warn(`user-changed listener failed: ${(error as Error).message}`);
      }
    }
  }

  async revokeSessions(userId: number, exceptSessionId?: string): Promise<void> {
    if (!this.revokeHandler) {
      this.logger.warn('no session handler registered; sessions not ended');
      return;
    }
    await this.revokeHandler(userId, exceptSessionId);
  }

  async modelsForGroups(groups: string[]): Promise<string[]> {
    return this.modelsProvider ? [...(await this.modelsProvider(groups))] : [];
  }
}
