import { Controller, Get, Header, Headers, Query } from '@nestjs/common';
import { ClientIp, CriticalRateLimit, NoEnvelope } from '@gw/core';
import type { RelayCredentials } from './relay-identity.js';
import { TokenAuthService } from './token-auth.service.js';
import { TokenBillingService } from './token-billing.service.js';

function credentials(headers: Record<string, string | undefined>, key: unknown): RelayCredentials {
  return {
    authorization: headers.authorization,
    xApiKey: headers['x-api-key'],
    xGoogApiKey: headers['x-goog-api-key'],
    queryKey: typeof key === 'string' ? key : undefined,
  };
}

/** OpenAI's legacy billing endpoints and new-api's token usage, authenticated by an API key. */
@Controller()
@NoEnvelope()
export class TokenBillingController {
  constructor(
    private readonly auth: TokenAuthService,
    private readonly billing: TokenBillingService,
  ) {}

  @Get(['dashboard/billing/subscription', 'v1/dashboard/billing/subscription'])
  async subscription(@Headers() headers: Record<string, string>, @Query('key') key: unknown, @ClientIp() ip: string) {
    return this.billing.subscription(await this.auth.authenticate(credentials(headers, key), ip));
  }

  @Get(['dashboard/billing/usage', 'v1/dashboard/billing/usage'])
  async usage(@Headers() headers: Record<string, string>, @Query('key') key: unknown, @ClientIp() ip: string) {
    return this.billing.usage(await this.auth.authenticate(credentials(headers, key), ip));
  }

  /** new-api's TokenAuthReadOnly: a disabled, expired or exhausted token may still read its usage. */
  @Get('api/usage/token')
  @CriticalRateLimit()
  @Header('Access-Control-Allow-Origin', '*')
  async tokenUsage(@Headers() headers: Record<string, string>, @Query('key') key: unknown, @ClientIp() ip: string) {
    return this.billing.tokenUsage(await this.auth.authenticate(credentials(headers, key), ip, { readOnly: true }));
  }
}
