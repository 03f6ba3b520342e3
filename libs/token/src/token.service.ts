import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { CreateTokenRequest, TokenStatusRequest, TokenView, UpdateTokenRequest } from '@gw/contracts';
import { APP_CONFIG, BusinessError, NotFoundError, parsePage, toPage, type AppConfig, type Page, type Principal } from '@gw/core';
import { nowSeconds } from '@gw/database';
import { OptionService } from '@gw/option';
import { AUTO_GROUP, BalanceEvents, UserHooks } from '@gw/user';
import { TokenAuthService } from './token-auth.service.js';
import { generateTokenKey, randomAlphanumeric } from './token-key.js';
import { assertCanEnable, reachedStatus, validateTokenFields } from './token-rules.js';
import { TokenStatus, type TokenEntity } from './token.entity.js';
import { TokenRepository } from './token.repository.js';
import { toTokenView } from './token.view.js';

/** new-api's token_setting.max_user_tokens default. */
const MAX_TOKENS_PER_USER = 1000;
const NOT_FOUND = 'token not found';

/** The console's token management: a user sees and changes only their own tokens. */
@Injectable()
export class TokenService implements OnModuleInit {
  constructor(
    private readonly tokens: TokenRepository,
    private readonly auth: TokenAuthService,
    private readonly options: OptionService,
    private readonly balances: BalanceEvents,
    private readonly hooks: UserHooks,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (this.config.generateDefaultToken) this.hooks.onPasswordRegistered((user) => this.createDefaultToken(user));
  }

  /**
   * GENERATE_DEFAULT_TOKEN: new-api's first token for a password sign-up, `<username>的初始令牌`, never expiring,
   * unlimited (its remain_quota 500000 is only shown), no model limits, the user's own group (`auto` with
   * DefaultUseAutoGroup on, as new-api).
   */
  private async createDefaultToken(user: { id: number; username: string }): Promise<void> {
    const now = nowSeconds();
    const row = {
      name: `${user.username}的初始令牌`,
      userId: user.id,
      key: generateTokenKey(),
      status: TokenStatus.Enabled,
      createdTime: now,
      accessedTime: now,
      expiredTime: -1,
      remainQuota: 500_000,
      unlimitedQuota: true,
      modelLimitsEnabled: false,
      usedQuota: 0,
      group: this.options.get('DefaultUseAutoGroup') ? AUTO_GROUP : '',
    };
    const created = await this.tokens.transaction((manager) => this.tokens.insert([row], manager));
    await this.auth.tokensChanged(created.map((t) => t.id));
  }

  async list(caller: Principal, query: Record<string, unknown>): Promise<Page<TokenView>> {
    const page = parsePage(query);
    const [rows, total] = await this.tokens.listOwned(caller.id, page.offset, page.pageSize);
    return toPage(await this.viewsOf(rows), total, page);
  }

  async search(caller: Principal, query: Record<string, unknown>): Promise<Page<TokenView>> {
    const page = parsePage(query);
    const keyword = typeof query.keyword === 'string' ? query.keyword.trim().slice(0, 255) : '';
    const token = typeof query.token === 'string' ? query.token.trim().replace(/^sk-/, '').slice(0, 128) : '';
    const [rows, total] = await this.tokens.searchOwned(caller.id, keyword, token, page.offset, page.pageSize);
    return toPage(await this.viewsOf(rows), total, page);
  }

  async get(caller: Principal, id: number): Promise<TokenView> {
    const [view] = await this.viewsOf([await this.owned(caller, id)]);
    return view!;
  }

  async revealKey(caller: Principal, id: number): Promise<{ key: string }> {
    const token = await this.owned(caller, id);
    return { key: `sk-${token.key}` };
  }

  async revealKeys(caller: Principal, ids: number[]): Promise<{ keys: Record<string, string> }> {
    const tokens = await this.tokens.findOwnedIds(ids, caller.id);
    return { keys: Object.fromEntries(tokens.map((t) => [String(t.id), `sk-${t.key}`])) };
  }

  async create(caller: Principal, input: CreateTokenRequest): Promise<null> {
    const fields = validateTokenFields(input, this.options, caller.group);
    if ((await this.tokens.countOwned(caller.id)) + input.count > MAX_TOKENS_PER_USER) {
      throw new BusinessError(`you can have at most ${MAX_TOKENS_PER_USER} tokens`);
    }
    const now = nowSeconds();
    const rows = Array.from({ length: input.count }, (_, i) => ({
      ...fields,
      // Like new-api's console: the first keeps the name, the others get a random suffix.
      name: i === 0 ? fields.name : `${fields.name}-${randomAlphanumeric(6)}`,
      userId: caller.id,
      key: generateTokenKey(),
      status: TokenStatus.Enabled,
      createdTime: now,
      accessedTime: now,
      usedQuota: 0,
    }));
    const created = await this.tokens.transaction((manager) => this.tokens.insert(rows, manager));
    await this.auth.tokensChanged(created.map((t) => t.id));
    return null;
  }

  async update(caller: Principal, input: UpdateTokenRequest): Promise<TokenView> {
    const token = await this.owned(caller, input.id);
    const fields = validateTokenFields(input, this.options, caller.group, token.expiredTime);
    await this.tokens.update(token.id, caller.id, fields);
    await this.auth.tokensChanged([token.id]);
    // An edit sets remain_quota and unlimited_quota (the console form always sends both).
    this.balances.changed({ userId: caller.id, tokenId: token.id });
    return this.get(caller, token.id);
  }

  async setStatus(caller: Principal, input: TokenStatusRequest): Promise<TokenView> {
    const token = await this.owned(caller, input.id);
    if (input.status === TokenStatus.Enabled) assertCanEnable(token);
    await this.tokens.update(token.id, caller.id, { status: input.status });
    await this.auth.tokensChanged([token.id]);
    return this.get(caller, token.id);
  }

  async remove(caller: Principal, id: number): Promise<null> {
    const deleted = await this.tokens.softDeleteOwned([id], caller.id);
    if (!deleted.length) throw new NotFoundError(NOT_FOUND);
    await this.auth.tokensChanged(deleted);
    return null;
  }

  /** Deletes the caller's tokens among `ids` (others' ids are ignored) and returns how many went. */
  async removeMany(caller: Principal, ids: number[]): Promise<number> {
    const deleted = await this.tokens.softDeleteOwned(ids, caller.id);
    await this.auth.tokensChanged(deleted);
    return deleted.length;
  }

  private async owned(caller: Principal, id: number): Promise<TokenEntity> {
    const token = await this.tokens.findOwned(id, caller.id);
    if (!token) throw new NotFoundError(NOT_FOUND);
    return token;
  }

  /** Views of rows, first recording expiry/exhaustion reached since the last write (as new-api does on read). */
  private async viewsOf(rows: TokenEntity[]): Promise<TokenView[]> {
    const changed: number[] = [];
    for (const row of rows) {
      const status = reachedStatus(row);
      if (status === undefined) continue;
      const saved =
        status === TokenStatus.Expired ? await this.tokens.markExpired(row.id, nowSeconds()) : await this.tokens.markExhausted(row.id);
      if (saved) {
        row.status = status;
        changed.push(row.id);
      }
    }
    if (changed.length) await this.auth.tokensChanged(changed);
    return rows.map(toTokenView);
  }
}
