import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { body, CriticalRateLimit, raw, withMessage } from '@gw/core';
import { SetupSchema, type SetupRequest } from '@gw/contracts';
import { SetupService } from './setup.service.js';

@Controller('api/setup')
export class SetupController {
  constructor(private readonly setup: SetupService) {}

  /** new-api answers this one without a message key. */
  @Get()
  async status() {
    return raw({ success: true, data: await this.setup.status() });
  }

  @Post()
  @HttpCode(200)
  @CriticalRateLimit()
  async complete(@Body(body(SetupSchema)) request: SetupRequest) {
    await this.setup.complete(request);
    return withMessage('系统初始化成功');
  }
}
