import { Logger } from '@nestjs/common';
import { ThrottlerStorageService, type ThrottlerStorage } from '@nestjs/throttler';
import type { Redis } from 'ioredis';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * Fixed-window counters in Redis, so that several gateway instances share one limit. One round trip:
 * INCR, set the expiry on the first hit, read the remaining TTL. While Redis is unreachable the
 * counters fall back to this instance's memory: limits keep working, requests never fail on it.
 */
export class RedisThrottlerStorage implements ThrottlerStorage {
  private readonly logger = new Logger('RateLimit');
  private warned = false;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'throttle:',
    /** Where counts go while Redis is away: this process's memory, or the cluster primary's. */
    private readonly fallback: ThrottlerStorage = new ThrottlerStorageService(),
  ) {}

  async increment(key: string, ttl: number, limit: number, blockDuration: number, name: string): Promise<ThrottlerStorageRecord> {
    if (this.redis.status !== 'ready') return this.local(key, ttl, limit, blockDuration, name);
    try {
      const redisKey = `${this.prefix}${name}:${key}`;
      const [[, hits], , [, pttl]] = (await this.redis.multi().incr(redisKey).pexpire(redisKey, ttl, 'NX').pttl(redisKey).exec()) as [
        [null, number],
        [null, number],
        [null, number],
      ];
      const timeToExpire = Math.max(0, Math.ceil(pttl / 1000));
      const isBlocked = hits > limit;
      this.warned = false;
      return {
        totalHits: hits,
        timeToExpire,
        isBlocked,
        timeToBlockExpire: isBlocked ? Math.ceil(blockDuration / 1000) || timeToExpire : 0,
      };
    } catch {
      return this.local(key, ttl, limit, blockDuration, name);
    }
  }

  private local(key: string, ttl: number, limit: number, blockDuration: number, name: string): Promise<ThrottlerStorageRecord> {
    if (!this.warned) this.logger.warn('Redis unavailable: rate limits counted in memory until it is back');
    this.warned = true;
    return this.fallback.increment(key, ttl, limit, blockDuration, name);
  }
}
