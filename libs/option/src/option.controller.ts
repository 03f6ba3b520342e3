import { Body, Controller, Get, Post, Put } from '@nestjs/common';
import { body, RootRoute, withMessage } from '@gw/core';
import { UpdateOptionSchema, type UpdateOptionRequest } from '@gw/contracts';
import { OptionService, type OptionItem } from './option.service.js';

@Controller('api/option')
@RootRoute()
export class OptionController {
  constructor(private readonly options: OptionService) {}

  @Get()
  list(): OptionItem[] {
    return this.options.list();
  }

  @Put()
  async update(@Body(body(UpdateOptionSchema)) request: UpdateOptionRequest) {
    await this.options.update(request.key, request.value);
    return withMessage('');
  }

  /** new-api's spelling ("rest"), kept for client compatibility. */
  @Post('rest_model_ratio')
  async resetModelRatio() {
    await this.options.resetRatios();
    return withMessage('');
  }
}
