import { Controller, Delete, Get, Param } from '@nestjs/common';
import { AdminRoute, CurrentUser, NotFoundError, UserRoute, withMessage, type Principal, idParam } from '@gw/core';
import { AccountAdminService } from './account-admin.service.js';

const id = (what: string) => idParam(() => new NotFoundError(`${what} does not exist`));

/** Bindings (self and admin) and the hard delete, under `/api/user`. Mounted after every literal route. */
@Controller('api/user')
export class AccountAdminController {
  constructor(private readonly accounts: AccountAdminService) {}

  @Get('oauth/bindings')
  @UserRoute()
  myBindings(@CurrentUser() caller: Principal) {
    return this.accounts.bindings(caller.id);
  }

  @Delete('oauth/bindings/:provider_id')
  @UserRoute()
  async unbind(@CurrentUser() caller: Principal, @Param('provider_id', id('binding')) providerId: number) {
    await this.accounts.unbind(caller.id, providerId);
    return withMessage('unbound');
  }

  @Get(':id/oauth/bindings')
  @AdminRoute()
  userBindings(@CurrentUser() caller: Principal, @Param('id', id('user')) userId: number) {
    return this.accounts.adminBindings(caller, userId);
  }

  @Delete(':id/oauth/bindings/:provider_id')
  @AdminRoute()
  async adminUnbind(
    @CurrentUser() caller: Principal,
    @Param('id', id('user')) userId: number,
    @Param('provider_id', id('binding')) providerId: number,
  ) {
    await this.accounts.adminUnbind(caller, userId, providerId);
    return withMessage('unbound');
  }

  @Delete(':id/bindings/:binding_type')
  @AdminRoute()
  async clearBinding(@CurrentUser() caller: Principal, @Param('id', id('user')) userId: number, @Param('binding_type') type: string) {
    await this.accounts.adminClearBuiltIn(caller, userId, String(type).slice(0, 32));
    return withMessage('unbound');
  }

  @Delete(':id')
  @AdminRoute()
  async hardDelete(@CurrentUser() caller: Principal, @Param('id', id('user')) userId: number) {
    await this.accounts.hardDelete(caller, userId);
    return withMessage('the user was deleted');
  }
}
