import type { Request } from 'express';
import { Injectable } from '@nestjs/common';
import type { Principal } from '@gw/core';
import { TokenAuthService, type RelayIdentity } from '@gw/token';
import { UserService } from '@gw/user';
import { badRequest } from '../pipeline/relay-error.js';
import { RelayAuthenticator, type RelayCaller } from '../pipeline/ports.js';

/** The playground's token name in the log (new-api bills the playground to the user with no token). */
export const PLAYGROUND_TOKEN_NAME = 'playground';

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function recordIp(setting: { raw?: Record<string, unknown> } | undefined): boolean {
  return setting?.raw?.record_ip_log === true;
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

  async authenticate(req: Request): Promise<RelayCaller> {
    const query = req.query.key;
    const identity = await this.tokens.authenticate(
      {
        authorization: header(req, 'authorization'),
        xApiKey: header(req, 'x-api-key'),
        xGoogApiKey: header(req, 'x-goog-api-key'),
        queryKey: typeof query === 'string' ? query : undefined,
      },
      req.ip ?? '',
    );
    return toCaller(identity);
  }

  /** The playground: the session's user, billed without a token, in the body's `group` when given. */
  async playground(req: Request, principal: Principal): Promise<RelayCaller> {
    const body = req.body as Record<string, unknown> | undefined;
    const group = body && typeof body === 'object' ? body.group : undefined;
    if (group !== undefined && group !== null && typeof group !== 'string') throw badRequest('group must be a string');
    const user = await this.users.findById(principal.id);
    let setting: Record<string, unknown> = {};
    try {
      setting = user?.setting ? (JSON.parse(user.setting) as Record<string, unknown>) ?? {} : {};
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
    modelLimits: token.modelLimitsEnabled ? token.modelLimits : undefined,
    acceptUnsetModelRatioModel: user.setting.acceptUnsetModelRatioModel,
    recordIp: recordIp(user.setting as { raw?: Record<string, unknown> }),
    playground: false,
  };
  if (identity.pinnedChannelId !== undefined) caller.pinnedChannelId = identity.pinnedChannelId;
  return caller;
}
