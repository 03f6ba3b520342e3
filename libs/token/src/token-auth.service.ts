import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, cancelScheduled, RedisService, scheduleEvery, Role, type AppConfig } from '@gw/core';
import { nowSeconds } from '@gw/database';
import { OptionService } from '@gw/option';
import { UserHooks, UserStatus } from '@gw/user';
import { RelayAuthError, type RelayCredentials, type RelayIdentity } from './relay-identity.js';
import { TokenIndex, type IndexedToken } from './token-index.js';
import { parsePresentedKey } from './token-key.js';
import { TokenStatus } from './token.entity.js';
import { TokenRepository } from './token.repository.js';
import { usableGroupNames } from './usable-groups.js';
import { UserSnapshots } from './user-snapshots.js';

const TOKENS_CHANGED = 'tokens:changed';
const USERS_CHANGED = 'users:changed';

export interface AuthenticateOptions {
  /** new-api's TokenAuthReadOnly (usage queries): disabled, expired and exhausted tokens still identify. */
  readOnly?: boolean;
}

/**
 * The relay's key check, with no database read per request: tokens and users come from memory.
 * Invalidated on every token write here, on user changes (UserHooks), through Redis from other
 * instances, and fully reloaded every SYNC_FREQUENCY seconds.
 */
@Injectable()
export class TokenAuthService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('TokenAuth');
  private readonly instanceId = randomUUID();

  constructor(
    private readonly index: TokenIndex,
    private readonly users: UserSnapshots,
    private readonly tokens: TokenRepository,
    private readonly options: OptionService,
    private readonly redis: RedisService,
    private readonly hooks: UserHooks,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.index.reload();
    const ms = this.config.sync.frequencySeconds * 1000;
    scheduleEvery(
      this.scheduler,
      'token-sync',
      ms,
      () => this.index.reload(),
      (e) => this.warn('reload', e),
    );
    this.redis.subscribe(TOKENS_CHANGED, (message) => this.onTokensMessage(message));
    this.redis.subscribe(USERS_CHANGED, (message) => this.users.invalidate(Number(message)));
    this.redis.onResubscribed(() => {
      this.users.invalidateAll();
      void this.index.reload().catch((e) => this.warn('reload', e));
    });
    this.hooks.onUserChanged((userId) => {
      this.users.invalidate(userId);
      void this.redis.publish(USERS_CHANGED, String(userId)).catch((e) => this.warn('publish', e));
    });
  }

  onModuleDestroy(): void {
    cancelScheduled(this.scheduler, 'token-sync');
  }

  async authenticate(credentials: RelayCredentials, ip: string, options: AuthenticateOptions = {}): Promise<RelayIdentity> {
    const presented = parsePresentedKey(pickCredential(credentials));
    if (!presented) throw new RelayAuthError('no API key provided (use Authorization: Bearer sk-...)', 401, 'invalid_api_key');
    const entry = await this.index.lookup(presented.key);
    if (!entry) throw new RelayAuthError('invalid token', 401, 'invalid_api_key');
    if (!options.readOnly) await this.checkUsable(entry);

    const token = entry.snapshot;
    const user = await this.users.get(token.userId);
    if (!user || user.status !== UserStatus.Enabled) throw new RelayAuthError('the user is disabled', 403, 'user_disabled');
    if (!entry.allows(ip)) throw new RelayAuthError('your IP address is not allowed to use this token', 403, 'access_denied');
    if (!options.readOnly && token.group && !usableGroupNames(this.options, user.group).has(token.group)) {
      throw new RelayAuthError(`the token's group ${token.group} is not available to this user`, 403, 'access_denied');
    }

    let pinnedChannelId: number | undefined;
    if (presented.channel !== undefined) {
      if (user.role < Role.Admin) throw new RelayAuthError('regular users cannot pick a channel', 403, 'access_denied');
      if (!/^\d{1,9}$/.test(presented.channel) || Number(presented.channel) < 1)
        throw new RelayAuthError('invalid channel id', 400, 'invalid_channel_id');
      pinnedChannelId = Number(presented.channel);
    }
    return pinnedChannelId === undefined ? { token, user } : { token, user, pinnedChannelId };
  }

  /** After billing: keep the in-memory remaining/used quota (token and user) in step with the database. */
  applySpend(tokenId: number, quotaDelta: number): void {
    const entry = this.index.get(tokenId);
    if (!entry || !Number.isFinite(quotaDelta)) return;
    const token = entry.snapshot;
    token.usedQuota += quotaDelta;
    this.users.spend(token.userId, quotaDelta);
    if (token.unlimitedQuota) return;
    token.remainQuota -= quotaDelta;
    if (token.remainQuota <= 0 && token.status === TokenStatus.Enabled)
      void this.markExhausted(tokenId).catch((e) => this.warn('mark exhausted', e));
  }

  /** Sets status 4 when the token really has nothing left in the database (a conditional update). */
  async markExhausted(tokenId: number): Promise<void> {
    if (await this.tokens.markExhausted(tokenId)) {
      this.index.setStatus(tokenId, TokenStatus.Exhausted);
      await this.publish([tokenId]);
    } else {
      await this.index.refresh(tokenId);
    }
  }

  /** Called by the token service after any write: refresh here, then tell the other instances. */
  async tokensChanged(ids: number[]): Promise<void> {
    await Promise.all(ids.map((id) => this.index.refresh(id)));
    await this.publish(ids);
  }

  private async checkUsable(entry: IndexedToken): Promise<void> {
    const token = entry.snapshot;
    if (token.status === TokenStatus.Exhausted) throw new RelayAuthError('the token quota is exhausted', 401, 'insufficient_quota');
    if (token.status === TokenStatus.Expired) throw new RelayAuthError('the token has expired', 401, 'token_expired');
    if (token.status !== TokenStatus.Enabled) throw new RelayAuthError('the token is disabled', 401, 'token_disabled');
    const now = nowSeconds();
    if (token.expiredTime !== -1 && token.expiredTime < now) {
      this.index.setStatus(token.id, TokenStatus.Expired);
      if (await this.tokens.markExpired(token.id, now).catch((e) => this.warn('mark expired', e))) await this.publish([token.id]);
      throw new RelayAuthError('the token has expired', 401, 'token_expired');
    }
    if (!token.unlimitedQuota && token.remainQuota <= 0) {
      await this.markExhausted(token.id).catch((e) => this.warn('mark exhausted', e));
      throw new RelayAuthError('the token quota is exhausted', 401, 'insufficient_quota');
    }
  }

  private onTokensMessage(message: string): void {
    const [sender, ids] = message.split(':');
    if (sender === this.instanceId || !ids) return;
    for (const id of ids
      .split(',')
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0)) {
      void this.index.refresh(id).catch((e) => this.warn('refresh', e));
    }
  }

  private async publish(ids: number[]): Promise<void> {
    if (!ids.length) return;
    await this.redis.publish(TOKENS_CHANGED, `${this.instanceId}:${ids.join(',')}`).catch((e) => this.warn('publish', e));
  }

  private warn(what: string, error: unknown): undefined {
    this.logger.warn(`${what}: ${(error as Error).message}`);
    return undefined;
  }
}

/** new-api's order: the Anthropic and Gemini headers win over Authorization when present. */
function pickCredential(credentials: RelayCredentials): string | undefined {
  return [credentials.xApiKey, credentials.xGoogApiKey, credentials.queryKey, credentials.authorization].find(
    (v) => v !== undefined && v.trim() !== '',
  );
}
