import { ThrottlerStorageService, type ThrottlerStorage } from '@nestjs/throttler';
import { callPrimary } from '../redis/cluster-bus.js';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** The operation name the cluster primary serves with its own in-memory throttler storage. */
export const THROTTLE_OP = 'throttle';

/**
 * The API rate limits of a WORKERS=N gateway without Redis (or while Redis is down): counted once, in the
 * cluster primary, so N workers allow what one process would. If the primary does not answer, this worker
 * counts in its own memory rather than failing the request.
 */
export class ClusterThrottlerStorage implements ThrottlerStorage {
  private readonly fallback = new ThrottlerStorageService();

  async increment(key: string, ttl: number, limit: number, blockDuration: number, name: string): Promise<ThrottlerStorageRecord> {
    try {
      return await callPrimary<ThrottlerStorageRecord>(THROTTLE_OP, [key, ttl, limit, blockDuration, name]);
    } catch {
      return this.fallback.increment(key, ttl, limit, blockDuration, name);
    }
  }
}
