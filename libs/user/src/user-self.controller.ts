import { Body, Controller, Delete, Get, HttpCode, Post, Put } from '@nestjs/common';
import { body, CurrentUser, UserRoute, type Principal } from '@gw/core';
import { AffTransferSchema, UpdateSelfSchema, UserSettingSchema, type UpdateSelfRequest, type UserSettingRequest } from '@gw/contracts';
import { UserSelfService } from './user-self.service.js';
import { UserService } from './user.service.js';

@Controller('api/user')
export class UserSelfController {
  constructor(
    private readonly users: UserService,
    private readonly selfService: UserSelfService,
  ) {}

  @Get('self')
  @UserRoute()
  self(@CurrentUser() principal: Principal) {
    return this.users.self(principal.id);
  }

  @Put('self')
  @UserRoute()
  async update(@CurrentUser() principal: Principal, @Body(body(UpdateSelfSchema)) input: UpdateSelfRequest) {
    await this.selfService.update(principal, input);
  }

  @Delete('self')
  @UserRoute()
  async remove(@CurrentUser() principal: Principal) {
    await this.selfService.deleteSelf(principal);
  }

  @Get('models')
  @UserRoute()
  models(@CurrentUser() principal: Principal) {
    return this.selfService.models(principal);
  }

  @Get('self/groups')
  @UserRoute()
  selfGroups(@CurrentUser() principal: Principal) {
    return this.selfService.groups(principal);
  }

  /** Public: the default usable groups. */
  @Get('groups')
  groups() {
    return this.selfService.publicGroups();
  }

  @Get('token')
  @UserRoute()
  token(@CurrentUser() principal: Principal) {
    return this.selfService.regenerateToken(principal);
  }

  @Get('aff')
  @UserRoute()
  aff(@CurrentUser() principal: Principal) {
    return this.selfService.affCode(principal);
  }

  @Post('aff_transfer')
  @HttpCode(200)
  @UserRoute()
  async affTransfer(@CurrentUser() principal: Principal, @Body(body(AffTransferSchema)) input: { quota: number }) {
    await this.selfService.affTransfer(principal, input.quota);
  }

  @Put('setting')
  @UserRoute()
  async setting(@CurrentUser() principal: Principal, @Body(body(UserSettingSchema)) input: UserSettingRequest) {
    await this.selfService.updateSetting(principal, input);
  }
}
