import { timingSafeEqual } from 'node:crypto';
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG, NoEnvelope, type AppConfig } from '@gw/core';
import { GATEWAY_METRICS, type MaybeMetrics } from './metrics-provider.js';

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Prometheus scrape endpoint: 404 unless METRICS_ENABLED (or METRICS_TOKEN), and a bearer token when one is set. */
@Controller('metrics')
@NoEnvelope()
export class MetricsController {
  constructor(
    @Inject(GATEWAY_METRICS) private readonly metrics: MaybeMetrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  async scrape(@Req() req: Request, @Res() res: Response): Promise<void> {
    const { token } = this.config.ops.metrics;
    const metrics = this.metrics;
    res.setHeader('Cache-Control', 'no-store');
    if (!metrics) {
      res.status(404).type('text/plain').send('metrics are disabled (set METRICS_ENABLED=true or METRICS_TOKEN)\n');
      return;
    }
    if (token) {
      const header = req.headers.authorization ?? '';
      const given = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
      if (!sameSecret(given, token)) {
        res
          .status(401)
          .setHeader('WWW-Authenticate', 'Bearer realm="metrics"')
          .type('text/plain')
          .send('a valid bearer token is required\n');
        return;
      }
    }
    const body = await metrics.registry.metrics();
    res.status(200).setHeader('Content-Type', metrics.registry.contentType).send(body);
  }
}
