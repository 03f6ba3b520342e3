import { Injectable, Logger } from '@nestjs/common';

type RevokeHandler = (userId: number, exceptSessionId?: string) => Promise<void>;
type ModelsProvider = (groups: string[]) => string[] | Promise<string[]>;

/**
 * Hooks that let modules above `user` plug in without a dependency cycle: `@gw/auth` registers how
 * sessions are ended; `@gw/channel` registers which models a set of groups may use.
 */
@Injectable()
export class UserHooks {
  private readonly logger = new Logger('UserHooks');
  private revokeHandler?: RevokeHandler;
  private modelsProvider?: ModelsProvider;

  onRevokeSessions(handler: RevokeHandler): void {
    this.revokeHandler = handler;
  }

  /** Called by the channel module: `hooks.provideModels((groups) => router.modelsForGroups(groups))`. */
  provideModels(provider: ModelsProvider): void {
    this.modelsProvider = provider;
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
