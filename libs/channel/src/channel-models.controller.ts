import { Controller, Get } from '@nestjs/common';
import { raw, UserRoute } from '@gw/core';
import { builtInModelsByType } from '@gw/contracts';

/** `GET /api/models` (user): the models built into each channel type, for the channel form. */
@Controller('api/models')
export class ChannelModelsController {
  @Get()
  @UserRoute()
  models() {
    return raw({ success: true, data: builtInModelsByType() });
  }
}
