import type { Server } from 'node:http';
import { Controller, Get, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Response } from 'express';
import { AdminRoute, AppError, NoEnvelope, raw } from '@gw/core';
import { ReadinessService } from './readiness.service.js';
import { UptimeKumaService } from './uptime-kuma.service.js';

/** Probes for orchestrators (outside /api: no rate limit, no envelope) and new-api's two status routes. */
@Controller()
export class HealthController {
  constructor(
    private readonly readiness: ReadinessService,
    private readonly uptime: UptimeKumaService,
    private readonly host: HttpAdapterHost,
  ) {}

  /** Liveness: the process answers. Never looks at the database (a database outage must not restart every instance). */
  @Get('healthz')
  @NoEnvelope()
  live(): { status: string } {
    return { status: 'ok' };
  }

  /** Readiness: 200 when the instance should get traffic, 503 (with the failing check) otherwise. */
  @Get('readyz')
  @NoEnvelope()
  async ready(@Res() res: Response): Promise<void> {
    const report = await this.readiness.report();
    res
      .status(report.ready ? 200 : 503)
      .setHeader('Cache-Control', 'no-store')
      .json({ status: report.ready ? 'ready' : 'not ready', ...report });
  }

  /** new-api: database ping plus HTTP stats, for administrators. */
  @Get('api/status/test')
  @AdminRoute()
  async test() {
    if (!(await this.readiness.pingDatabase())) throw new AppError('Database connection failed', 503, 'database_unavailable');
    return raw({ success: true, message: 'Server is running', http_stats: { active_connections: await this.openConnections() } });
  }

  /** new-api: the configured Uptime Kuma status pages (public, like the console's status panel). */
  @Get('api/uptime/status')
  uptimeStatus() {
    return this.uptime.status();
  }

  private openConnections(): Promise<number> {
    const server = this.host.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) return Promise.resolve(0);
    return new Promise((resolve) => server.getConnections((_error, count) => resolve(count ?? 0)));
  }
}
