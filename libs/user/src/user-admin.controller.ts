import { Body, Controller, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { AdminRoute, body, NotFoundError, CurrentUser, parsePage, withMessage, type Principal, idParam } from '@gw/core';
import {
  CreateUserSchema,
  ManageUserSchema,
  SearchUsersSchema,
  UpdateUserSchema,
  type CreateUserRequest,
  type ManageUserRequest,
  type UpdateUserRequest,
} from '@gw/contracts';
import { OptionService } from '@gw/option';
import { UserAdminService } from './user-admin.service.js';

@Controller('api/user')
@AdminRoute()
export class UserAdminController {
  constructor(private readonly admin: UserAdminService) {}

  @Get()
  list(@Query() query: Record<string, unknown>) {
    return this.admin.list(parsePage(query));
  }

  @Get('search')
  search(@Query() query: Record<string, unknown>) {
    const { keyword, group } = body(SearchUsersSchema).transform(query);
    return this.admin.search(keyword, group, parsePage(query));
  }

  @Post()
  @HttpCode(200)
  async create(@Body(body(CreateUserSchema)) input: CreateUserRequest) {
    await this.admin.create(input);
  }

  @Put()
  async update(@CurrentUser() caller: Principal, @Body(body(UpdateUserSchema)) input: UpdateUserRequest) {
    await this.admin.update(caller, input);
  }

  @Post('manage')
  @HttpCode(200)
  async manage(@CurrentUser() caller: Principal, @Body(body(ManageUserSchema)) input: ManageUserRequest) {
    return withMessage('', await this.admin.manage(caller, input));
  }
}

/**
 * `GET /api/user/:id`, on its own: Express matches routes in registration order, so this parametric
 * route must be mounted after every literal `GET /api/user/<name>` (self, logout, models, ...). The
 * auth module mounts it last among its controllers (`@gw/auth` comes after `@gw/user`).
 */
@Controller('api/user')
@AdminRoute()
export class UserDetailController {
  constructor(private readonly admin: UserAdminService) {}

  @Get(':id')
  get(
    @CurrentUser() caller: Principal,
    @Param(
      'id',
      idParam(() => new NotFoundError('user does not exist')),
    )
    id: number,
  ) {
    return this.admin.get(caller, id);
  }
}

@Controller('api/group')
@AdminRoute()
export class GroupController {
  constructor(private readonly options: OptionService) {}

  @Get()
  list(): string[] {
    return Object.keys(this.options.get('GroupRatio'));
  }
}
