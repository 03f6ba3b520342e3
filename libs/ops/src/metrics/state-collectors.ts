import type { Server } from 'node:http';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { poolUsageOf } from '@gw/database';
import { LogService } from '@gw/log';
import { GATEWAY_METRICS, type MaybeMetrics } from './metrics-provider.js';

interface ChannelRow {
  id: number | string;
  status: number | string;
  response_time: number | string | null;
}

/**
 * Gauges read when Prometheus scrapes rather than kept up to date on every request: channel health
 * (one small query per scrape), the log batch queue, the database pool and open HTTP connections.
 */
@Injectable()
export class StateCollectors implements OnModuleInit {
  constructor(
    @Inject(GATEWAY_METRICS) private readonly metrics: MaybeMetrics,
    private readonly dataSource: DataSource,
    private readonly logs: LogService,
    private readonly host: HttpAdapterHost,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.metrics) return;
    // Loaded already, by the metrics themselves.
    const { Gauge } = await import('prom-client');
    const registers = [this.metrics.registry];
    const dataSource = this.dataSource;
    const logs = this.logs;
    const host = this.host;

    // Both channel gauges collect at the same scrape (prom-client runs collects concurrently): one query serves both.
    let cached: { at: number; rows: Promise<ChannelRow[]> } | undefined;
    const channels = (): Promise<ChannelRow[]> => {
      if (!cached || Date.now() - cached.at > 1000) {
        cached = { at: Date.now(), rows: dataSource.query('SELECT id, status, response_time FROM channels').catch(() => []) };
      }
      return cached.rows;
    };
    new Gauge({
      name: 'gateway_channel_enabled',
      help: 'Channel status: 1 enabled, 0 disabled (manually or automatically)',
      labelNames: ['channel'] as const,
      registers,
      async collect() {
        const rows = await channels();
        this.reset();
        for (const row of rows) this.set({ channel: String(row.id) }, Number(row.status) === 1 ? 1 : 0);
      },
    });
    new Gauge({
      name: 'gateway_channel_response_time_seconds',
      help: 'Response time measured by the last channel test',
      labelNames: ['channel'] as const,
      registers,
      async collect() {
        const rows = await channels();
        this.reset();
        for (const row of rows) this.set({ channel: String(row.id) }, Number(row.response_time ?? 0) / 1000);
      },
    });
    new Gauge({
      name: 'gateway_log_batch_pending_rows',
      help: 'Log rows waiting for the next batch insert',
      registers,
      collect() {
        this.set(logs.pendingRows);
      },
    });
    new Gauge({
      name: 'gateway_db_pool_connections',
      help: 'Database pool connections by state (total, idle, waiting requests)',
      labelNames: ['state'] as const,
      registers,
      collect() {
        const usage = poolUsageOf(dataSource);
        if (!usage) return;
        this.set({ state: 'total' }, usage.total);
        this.set({ state: 'idle' }, usage.idle);
        this.set({ state: 'in_use' }, usage.total - usage.idle);
        this.set({ state: 'waiting' }, usage.waiting);
      },
    });
    new Gauge({
      name: 'gateway_http_open_connections',
      help: 'Open client connections',
      registers,
      async collect() {
        const server = host.httpAdapter?.getHttpServer() as Server | undefined;
        if (!server) return;
        this.set(await new Promise<number>((resolve) => server.getConnections((_error, count) => resolve(count ?? 0))));
      },
    });
  }
}
