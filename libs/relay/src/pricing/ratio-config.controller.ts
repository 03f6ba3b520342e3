import { Controller, Get } from '@nestjs/common';
import { AppError, CriticalRateLimit } from '@gw/core';
import { OptionService } from '@gw/option';

/**
 * `GET /api/ratio_config`: the ratios and prices, public while ExposeRatioEnabled is on, which other
 * new-api instances read to copy this site's prices (their ratio sync). Off: 403, as new-api answers.
 */
@Controller('api/ratio_config')
export class RatioConfigController {
  constructor(private readonly options: OptionService) {}

  @Get()
  @CriticalRateLimit()
  get() {
    if (!this.options.get('ExposeRatioEnabled'))
      throw new AppError('the ratio config API is not enabled', 403, 'ratio_config_disabled', 403);
    return {
      model_ratio: this.options.get('ModelRatio'),
      completion_ratio: this.options.get('CompletionRatio'),
      cache_ratio: this.options.get('CacheRatio'),
      create_cache_ratio: this.options.get('CreateCacheRatio'),
      model_price: this.options.get('ModelPrice'),
    };
  }
}
