import type { ThrottlerStorage } from '@nestjs/throttler';
import type { Redis } from 'ioredis';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * Fixed-window counters in Redis, so that several gateway instances share one limit.
 * One round trip: INCR, set the expiry on the first hit, read the remaining TTL.
 */
export class RedisThrottlerStorage implements ThrottlerStorage {
  constructor(private readonly redis: Redis, private readonly prefix = 'throttle:') {}

  async increment(key: string, ttl: number, limit: number, blockDuration: number, name: string): Promise<ThrottlerStorageRecord> {
    const redisKey = `${this.prefix}${name}:${key}`;
    const [[, hits], , [, pttl]] = (await this.redis
      .multi()
      .incr(redisKey)
      .pexpire(redisKey, ttl, 'NX')
      .pttl(redisKey)
      .exec()) as [[null, number], [null, number], [null, number]];
    const timeToExpire = Math.max(0, Math.ceil(pttl / 1000));
    const isBlocked = hits > limit;
    return { totalHits: hits, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? Math.ceil(blockDuration / 1000) || timeToExpire : 0 };
  }
}
