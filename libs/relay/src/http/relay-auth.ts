import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import type { Principal } from '@gw/core';
import { TokenAuthService, type RelayIdentity } from '@gw/token';
import { UserService } from '@gw/user';
import { badRequest } from '../pipeline/relay-error.js';
import { RelayAuthenticator, type RelayCaller, type RelayCredentialsOf } from '../pipeline/ports.js';

/** The playground's token name in the log (new-api bills the playground to the user with no token). */
export const PLAYGROUND_TOKEN_NAME = 'playground';

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** Token auth for /v1 (through the token lib's in-memory index) and the playground's session caller. */
@Injectable()
export class TokenRelayAuthenticator extends RelayAuthenticator {
  constructor(
    private readonly tokens: TokenAuthService,
    private readonly users: UserService,
  ) {
    super();
  }

  async authenticate(call: RelayCredentialsOf): Promise<RelayCaller> {
    const identity = await this.tokens.authenticate(
      {
        authorization: call.authorization ?? header(call.req, 'authorization'),
        xApiKey: header(call.req, 'x-api-key'),
        xGoogApiKey: header(call.req, 'x-goog-api-key'),
        queryKey: call.queryKey,
      },
      call.ip,
    );
    return toCaller(identity);
  }

  /** The playground: the session's user, billed without a token, in the body's `group` when given. */
  async playground(body: unknown, principal: Principal): Promise<RelayCaller> {
    const group = body && typeof body === 'object' ? (body as Record<string, unknown>).group : undefined;
    if (group !== undefined && group !== null && typeof group !== 'string') throw badRequest('group must be a string');
    const user = await this.users.findById(principal.id);
    let setting: Record<string, unknown> = {};
    try {
      setting = user?.setting ? ((JSON.parse(user.setting) as Record<string, unknown>) ?? {}) : {};
    } catch {
      setting = {};
    }
    return {
      userId: principal.id,
      username: principal.username,
      role: principal.role,
      userGroup: principal.group || 'default',
      tokenId: 0,
      tokenName: PLAYGROUND_TOKEN_NAME,
      requestedGroup: typeof group === 'string' ? group.trim() : '',
      acceptUnsetModelRatioModel: setting.accept_unset_model_ratio_model === true,
      recordIp: setting.record_ip_log === true,
      playground: true,
      balances: user ? { user: user.quota, token: Number.POSITIVE_INFINITY } : undefined,
    };
  }

  applySpend(tokenId: number, quotaDelta: number): void {
    if (tokenId > 0) this.tokens.applySpend(tokenId, quotaDelta);
  }

  markExhausted(tokenId: number): Promise<void> {
    return tokenId > 0 ? this.tokens.markExhausted(tokenId) : Promise.resolve();
  }
}

function toCaller(identity: RelayIdentity): RelayCaller {
  const { token, user } = identity;
  const caller: RelayCaller = {
    userId: user.id,
    username: user.username,
    role: user.role,
    userGroup: user.group || 'default',
    tokenId: token.id,
    tokenName: token.name,
    requestedGroup: token.group,
    crossGroupRetry: token.crossGroupRetry,
    modelLimits: token.modelLimitsEnabled ? token.modelLimits : undefined,
    acceptUnsetModelRatioModel: user.setting.acceptUnsetModelRatioModel,
    recordIp: user.setting.recordIpLog,
    playground: false,
    balances: { user: user.quota, token: token.unlimitedQuota ? Number.POSITIVE_INFINITY : token.remainQuota },
  };
  if (identity.pinnedChannelId !== undefined) caller.pinnedChannelId = identity.pinnedChannelId;
  return caller;
}
