import { Controller, Get } from '@nestjs/common';
import { CurrentUser, UserRoute, type Principal } from '@gw/core';
import { UserService } from './user.service.js';

@Controller('api/user')
export class UserSelfController {
  constructor(private readonly users: UserService) {}

  @Get('self')
  @UserRoute()
  self(@CurrentUser() principal: Principal) {
    return this.users.self(principal.id);
  }
}
