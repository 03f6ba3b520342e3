import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RedisService } from '@gw/core';
import { LOG_DATA_SOURCE } from '@gw/database';

export type Phase = 'starting' | 'ready' | 'draining';

export interface ReadinessReport {
  ready: boolean;
  phase: Phase;
  /** `log_database`: a separate LOG_SQL_DSN database, reported only (see report). */
  checks: { database: string; redis?: string; log_database?: string };
}

/** A check that has not answered within this time counts as failed (a dead database often hangs, not errors). */
const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Whether this instance should receive traffic: not before migrations are done (`starting`), not while
 * shutting down (`draining`), and not while the database (or the configured Redis) does not answer.
 */
@Injectable()
export class ReadinessService {
  private phase: Phase = 'starting';

  constructor(
    private readonly dataSource: DataSource,
    private readonly redis: RedisService,
    @Inject(LOG_DATA_SOURCE) private readonly logDataSource: DataSource,
  ) {}

  get current(): Phase {
    return this.phase;
  }

  markReady(): void {
    if (this.phase === 'starting') this.phase = 'ready';
  }

  markDraining(): void {
    this.phase = 'draining';
  }

  /** True when the database answers a trivial query. */
  async pingDatabase(): Promise<boolean> {
    return (await this.checkDatabase()) === 'ok';
  }

  /**
   * A separate log database is reported but does not decide readiness: every instance shares it, so an outage
   * would take them all out of rotation, while the relay keeps serving and buffers its log rows meanwhile.
   */
  async report(): Promise<ReadinessReport> {
    const separateLogs = this.logDataSource !== this.dataSource;
    const [database, redis, logDatabase] = await Promise.all([
      this.checkDatabase(),
      this.checkRedis(),
      separateLogs ? this.check(this.logDataSource) : undefined,
    ]);
    const checks: ReadinessReport['checks'] = { database };
    if (redis !== undefined) checks.redis = redis;
    if (logDatabase !== undefined) checks.log_database = logDatabase;
    const ready = this.phase === 'ready' && database === 'ok' && (redis === undefined || redis === 'ok');
    return { ready, phase: this.phase, checks };
  }

  private checkDatabase(): Promise<string> {
    return this.check(this.dataSource);
  }

  private async check(dataSource: DataSource): Promise<string> {
    if (!dataSource.isInitialized) return 'not connected';
    try {
      await withTimeout(dataSource.query('SELECT 1'), CHECK_TIMEOUT_MS);
      return 'ok';
    } catch (error) {
      return `failed: ${(error as Error).message}`;
    }
  }

  private async checkRedis(): Promise<string | undefined> {
    const client = this.redis.client;
    if (!client) return undefined;
    try {
      await withTimeout(client.ping(), CHECK_TIMEOUT_MS);
      return 'ok';
    } catch (error) {
      return `failed: ${(error as Error).message}`;
    }
  }
}
