import { Injectable, Logger } from '@nestjs/common';

type RevokeHandler = (userId: number, exceptSessionId?: string) => Promise<void>;
type ModelsProvider = (groups: string[]) => string[] | Promise<string[]>;
type UserChangedListener = (userId: number) => void;

/**
 * Hooks that let modules above `user` plug in without a dependency cycle: `@gw/auth` registers how
 * sessions are ended; `@gw/channel` registers which models a set of groups may use.
 */
@Injectable()
export class UserHooks {
  private readonly logger = new Logger('UserHooks');
  private revokeHandler?: RevokeHandler;
  private modelsProvider?: ModelsProvider;
  private readonly changedListeners = new Set<UserChangedListener>();

  onRevokeSessions(handler: RevokeHandler): void {
    this.revokeHandler = handler;
  }

  /** Called by the channel module: `hooks.provideModels((groups) => router.modelsForGroups(groups))`. */
  provideModels(provider: ModelsProvider): void {
    this.modelsProvider = provider;
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
