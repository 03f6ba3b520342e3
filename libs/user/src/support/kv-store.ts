import { Injectable } from '@nestjs/common';
import { RedisService } from '@gw/core';

interface Entry {
  value: string;
  /** On the monotonic clock (`elapsedMs`), not the wall clock. */
  expiresAt: number;
}

/**
 * Milliseconds on a clock that only moves forward at a steady rate. Windows and lifetimes kept in memory are
 * measured on it, so a wall-clock step (NTP, a resumed VM, an operator) neither ends a login lockout or a
 * code's lifetime early nor stretches it (threat F8); Redis keeps its own expiry the same way.
 */
const elapsedMs = (): number => performance.now();

/**
 * Short-lived shared state (verification codes, OAuth states, attempt counters). In memory on one
 * instance; in Redis when REDIS_CONN_STRING is set, so several instances agree. While Redis is down it
 * falls back to this instance's memory rather than failing logins.
 */
@Injectable()
export class KvStore {
  private readonly memory = new Map<string, Entry>();

  constructor(private readonly redis: RedisService) {}

  private key(key: string): string {
    return this.redis.key(`acct:${key}`);
  }

  private live(key: string): Entry | undefined {
    const entry = this.memory.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= elapsedMs()) {
      this.memory.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    if (this.memory.size < 10_000) return;
    const now = elapsedMs();
    for (const [key, entry] of this.memory) if (entry.expiresAt <= now) this.memory.delete(key);
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    const redis = this.redis.ready;
    if (redis) {
      await redis.set(this.key(key), value, 'EX', ttlSeconds);
      return;
    }
    this.sweep();
    this.memory.set(key, { value, expiresAt: elapsedMs() + ttlSeconds * 1000 });
  }

  /** Sets only when absent; true when this call set it. */
  async setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    const redis = this.redis.ready;
    if (redis) return (await redis.set(this.key(key), value, 'EX', ttlSeconds, 'NX')) === 'OK';
    if (this.live(key)) return false;
    this.sweep();
    this.memory.set(key, { value, expiresAt: elapsedMs() + ttlSeconds * 1000 });
    return true;
  }

  async get(key: string): Promise<string | undefined> {
    const redis = this.redis.ready;
    if (redis) return (await redis.get(this.key(key))) ?? undefined;
    return this.live(key)?.value;
  }

  /** Reads and deletes in one step (single-use values). */
  async take(key: string): Promise<string | undefined> {
    const redis = this.redis.ready;
    if (redis) return (await redis.getdel(this.key(key))) ?? undefined;
    const entry = this.live(key);
    this.memory.delete(key);
    return entry?.value;
  }

  async del(key: string): Promise<void> {
    const redis = this.redis.ready;
    if (redis) {
      await redis.del(this.key(key));
      return;
    }
    this.memory.delete(key);
  }

  /** Counts one event in a fixed window starting at the first event; returns the count. */
  async hit(key: string, windowSeconds: number): Promise<number> {
    const redis = this.redis.ready;
    if (redis) {
      // SET NX EX then INCR in one transaction: the window always has an expiry.
      const k = this.key(key);
      const result = await redis.multi().set(k, '0', 'EX', windowSeconds, 'NX').incr(k).exec();
      return Number(result?.[1]?.[1] ?? 1);
    }
    const entry = this.live(key);
    if (!entry) {
      this.sweep();
      this.memory.set(key, { value: '1', expiresAt: elapsedMs() + windowSeconds * 1000 });
      return 1;
    }
    entry.value = String(Number(entry.value) + 1);
    return Number(entry.value);
  }

  /**
   * Takes back one hit (an attempt counted up front that turned out fine). Only an existing window is
   * decremented: a bare DECR on an expired key would leave a counter with no expiry.
   */
  async unhit(key: string): Promise<void> {
    const redis = this.redis.ready;
    if (redis) {
      await redis.eval("if redis.call('exists', KEYS[1]) == 1 then return redis.call('decr', KEYS[1]) end return 0", 1, this.key(key));
      return;
    }
    const entry = this.live(key);
    if (entry) entry.value = String(Math.max(0, Number(entry.value) - 1));
  }

  async count(key: string): Promise<number> {
    return Number((await this.get(key)) ?? 0);
  }
}
