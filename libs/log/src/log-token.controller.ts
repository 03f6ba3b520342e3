import { Controller, Get, Header, Headers, Query } from '@nestjs/common';
import { ClientIp, CriticalRateLimit } from '@gw/core';
import { TokenAuthService } from '@gw/token';
import { LogQueryService } from './log-query.service.js';

/**
 * new-api's `GET /api/log/token`: the latest rows of the presented API key (self view), for
 * usage-checking pages hosted elsewhere (hence CORS). Read-only key check: a disabled, expired or
 * exhausted key may still read its own history.
 */
@Controller('api/log/token')
export class LogTokenController {
  constructor(
    private readonly auth: TokenAuthService,
    private readonly logs: LogQueryService,
  ) {}

  @Get()
  @CriticalRateLimit()
  @Header('Access-Control-Allow-Origin', '*')
  async byToken(@Headers() headers: Record<string, string | undefined>, @Query('key') key: unknown, @ClientIp() ip: string) {
    const identity = await this.auth.authenticate(
      { authorization: headers.authorization, xApiKey: headers['x-api-key'], queryKey: typeof key === 'string' ? key : undefined },
      ip,
      { readOnly: true },
    );
    return this.logs.listForToken(identity.token.id, identity.user.id);
  }
}
