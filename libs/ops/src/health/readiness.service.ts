import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RedisService } from '@gw/core';

export type Phase = 'starting' | 'ready' | 'draining';

export interface ReadinessReport {
  ready: boolean;
  phase: Phase;
  checks: { database: string; redis?: string };
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

  async report(): Promise<ReadinessReport> {
    const [database, redis] = await Promise.all([this.checkDatabase(), this.checkRedis()]);
    const checks: ReadinessReport['checks'] = { database };
    if (redis !== undefined) checks.redis = redis;
    const ready = this.phase === 'ready' && database === 'ok' && (redis === undefined || redis === 'ok');
    return { ready, phase: this.phase, checks };
  }

  private async checkDatabase(): Promise<string> {
    if (!this.dataSource.isInitialized) return 'not connected';
    try {
      await withTimeout(this.dataSource.query('SELECT 1'), CHECK_TIMEOUT_MS);
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
