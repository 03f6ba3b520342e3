import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  CreateTokenSchema,
  TokenIdsSchema,
  TokenKeyIdsSchema,
  TokenStatusSchema,
  UpdateTokenSchema,
  type CreateTokenRequest,
  type TokenIdsRequest,
} from '@gw/contracts';
import { body, CriticalRateLimit, CurrentUser, SearchRateLimit, UserRoute, type Principal } from '@gw/core';
import { tokenId } from './token-id.js';
import { TokenService } from './token.service.js';

/** new-api's `/api/token` (any logged-in user, own tokens only); static paths come before `/:id`; POSTs answer 200 like new-api. */
@Controller('api/token')
@UserRoute()
export class TokenController {
  constructor(private readonly tokens: TokenService) {}

  @Get()
  list(@CurrentUser() caller: Principal, @Query() query: Record<string, unknown>) {
    return this.tokens.list(caller, query);
  }

  @Get('search')
  @SearchRateLimit()
  search(@CurrentUser() caller: Principal, @Query() query: Record<string, unknown>) {
    return this.tokens.search(caller, query);
  }

  @Post()
  @HttpCode(200)
  create(@CurrentUser() caller: Principal, @Body(body(CreateTokenSchema)) input: CreateTokenRequest) {
    return this.tokens.create(caller, input);
  }

  /** `?status_only=true` changes only the status (enable/disable); otherwise a full update. */
  @Put()
  update(@CurrentUser() caller: Principal, @Query('status_only') statusOnly: unknown, @Body() raw: unknown) {
    if (statusOnly === 'true' || statusOnly === '1') return this.tokens.setStatus(caller, body(TokenStatusSchema).transform(raw));
    return this.tokens.update(caller, body(UpdateTokenSchema).transform(raw));
  }

  @Post('batch')
  @HttpCode(200)
  removeMany(@CurrentUser() caller: Principal, @Body(body(TokenIdsSchema)) input: TokenIdsRequest) {
    const ids = input.ids.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0);
    return this.tokens.removeMany(caller, ids);
  }

  /** new-api's batch reveal (≤ 100 ids): `{keys: {id: 'sk-…'}}`, own tokens only. */
  @Post('batch/keys')
  @HttpCode(200)
  @CriticalRateLimit()
  @Header('Cache-Control', 'no-store')
  revealKeys(@CurrentUser() caller: Principal, @Body(body(TokenKeyIdsSchema)) input: TokenIdsRequest) {
    return this.tokens.revealKeys(
      caller,
      input.ids.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0),
    );
  }

  @Get(':id')
  get(@CurrentUser() caller: Principal, @Param('id') id: string) {
    return this.tokens.get(caller, tokenId(id));
  }

  @Post(':id/key')
  @HttpCode(200)
  @CriticalRateLimit()
  @Header('Cache-Control', 'no-store')
  revealKey(@CurrentUser() caller: Principal, @Param('id') id: string) {
    return this.tokens.revealKey(caller, tokenId(id));
  }

  @Delete(':id')
  remove(@CurrentUser() caller: Principal, @Param('id') id: string) {
    return this.tokens.remove(caller, tokenId(id));
  }
}
