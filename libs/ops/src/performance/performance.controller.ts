import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { RootRoute } from '@gw/core';
import { type PerformanceStats, PerformanceService } from './performance.service.js';

/**
 * new-api's /api/performance (root): the load the relay's overload check reads, this process's memory and a
 * forced collection. new-api's disk cache and log file routes have nothing to act on here: request bodies are
 * never spooled to disk and the gateway logs to standard output.
 */
@Controller('api/performance')
@RootRoute()
export class PerformanceController {
  constructor(private readonly performance: PerformanceService) {}

  @Get('stats')
  stats(): PerformanceStats {
    return this.performance.stats();
  }

  @Post('gc')
  @HttpCode(200)
  gc(): { before: number; after: number } {
    return this.performance.collectGarbage();
  }
}
