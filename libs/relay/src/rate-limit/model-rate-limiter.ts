import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppError, callPrimary, clusterBus, cancelScheduled, RedisService, scheduleEvery } from '@gw/core';
import { OptionService } from '@gw/option';
import { RelayRateLimiter } from '../pipeline/ports.js';
import { redisWindow, type WindowMode } from './redis-window.js';
import { SlidingWindowLog } from './sliding-window.js';

/** 429 with an OpenAI error body on the relay edge. */
export class ModelRateLimitError extends AppError {
  constructor(message: string) {
    super(message, 429, 'rate_limit_exceeded', 429);
  }
}

interface Limits {
  /** Requests per window, failed ones included; 0 = unlimited. */
  total: number;
  /** Successful requests per window. */
  success: number;
  windowMs: number;
  minutes: number;
}

/**
 * new-api's ModelRequestRateLimit, per user id: a total count (every request, checked and counted on
 * entry) and a success count (checked on entry, counted when the answer succeeded), with per-group
 * overrides `{"group": [total, success]}`. With Redis the logs are shared by every instance; without it,
 * or while Redis is down, each instance counts in memory.
 */
@Injectable()
export class ModelRateLimiter extends RelayRateLimiter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ModelRateLimit');
  private readonly memory = new SlidingWindowLog();

  constructor(
    private readonly options: OptionService,
    private readonly redis: RedisService,
    private readonly scheduler: SchedulerRegistry,
  ) {
    super();
  }

  onModuleInit(): void {
    const sweep = () => this.memory.sweep(this.limits('').windowMs);
    scheduleEvery(this.scheduler, 'model-rate-limit-sweep', 60_000, sweep, (e) => this.logger.warn(`sweep: ${e.message}`));
  }

  onModuleDestroy(): void {
    cancelScheduled(this.scheduler, 'model-rate-limit-sweep');
  }

  async check(userId: number, group: string): Promise<void> {
    if (!this.options.get('ModelRequestRateLimitEnabled')) return;
    const limits = this.limits(group);
    if (limits.windowMs <= 0) return;
    // The success limit first: it only reads, so a refused request is not counted in the total.
    if (!(await this.step(successKey(userId), 'check', limits.success, limits.windowMs))) {
      throw new ModelRateLimitError(`you have reached the request limit: at most ${limits.success} requests in ${limits.minutes} minutes`);
    }
    if (limits.total > 0 && !(await this.step(totalKey(userId), 'take', limits.total, limits.windowMs))) {
      throw new ModelRateLimitError(
        `you have reached the total request limit: at most ${limits.total} requests in ${limits.minutes} minutes, failed requests included; check that your requests are correct`,
      );
    }
  }

  recordSuccess(userId: number, group: string): void {
    if (!this.options.get('ModelRequestRateLimitEnabled')) return;
    const limits = this.limits(group);
    if (limits.windowMs <= 0) return;
    void this.step(successKey(userId), 'record', limits.success, limits.windowMs);
  }

  private limits(group: string): Limits {
    const minutes = this.options.get('ModelRequestRateLimitDurationMinutes');
    const override = this.options.get('ModelRequestRateLimitGroup')[group];
    const valid = Array.isArray(override) && override.length === 2 && override.every((n) => Number.isInteger(n) && n >= 0);
    return {
      total: valid ? override[0] : this.options.get('ModelRequestRateLimitCount'),
      success: valid ? override[1] : this.options.get('ModelRequestRateLimitSuccessCount'),
      windowMs: minutes * 60_000,
      minutes,
    };
  }

  private async step(key: string, mode: WindowMode, max: number, windowMs: number): Promise<boolean> {
    const client = this.redis.ready;
    if (client) {
      try {
        return await redisWindow(client, this.redis.key(key), mode, max, windowMs);
      } catch (error) {
        // A Redis failure must not fail the relay: count on this instance until it is back.
        this.logger.warn(`redis rate limit: ${(error as Error).message}`);
      }
    }
    if (clusterBus.active) {
      // The workers of one WORKERS=N gateway share the primary's log, so N workers allow what one process would.
      try {
        return await callPrimary<boolean>(MODEL_WINDOW_OP, [key, mode, max, windowMs]);
      } catch (error) {
        this.logger.warn(`cluster rate limit: ${(error as Error).message}`);
      }
    }
    return applyWindow(this.memory, key, mode, max, windowMs);
  }
}

/** The operation name under which the cluster primary keeps the workers' shared model request logs. */
export const MODEL_WINDOW_OP = 'model-window';

/** One step of the limiter on an in-memory log (a worker's own, or the cluster primary's shared one). */
export function applyWindow(memory: SlidingWindowLog, key: string, mode: WindowMode, max: number, windowMs: number): boolean {
  if (mode === 'check') return memory.fits(key, max, windowMs);
  if (mode === 'take') return memory.take(key, max, windowMs);
  memory.record(key, max, windowMs);
  return true;
}

// new-api's key marks (MRRL = total, MRRLS = success), under REDIS_KEY_PREFIX.
const totalKey = (userId: number) => `rateLimit:MRRL:${userId}`;
const successKey = (userId: number) => `rateLimit:MRRLS:${userId}`;
