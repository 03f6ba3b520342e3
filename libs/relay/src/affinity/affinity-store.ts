import { Injectable } from '@nestjs/common';
import type { AffinityUsageCounters } from '@gw/contracts';
import { clusterBus, RedisService } from '@gw/core';
import { TtlLru } from './ttl-lru.js';

/** What one request adds to its key's counters. */
export interface AffinityUsageSample {
  mode: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

const PIN_PREFIX = 'channel_affinity:v1:';
const USAGE_PREFIX = 'channel_affinity_usage:v1:';
const COUNTERS = ['prompt_tokens', 'completion_tokens', 'total_tokens', 'cached_tokens'] as const;
/** Keys deleted per UNLINK when clearing. */
const DELETE_BATCH = 500;

const MIXED = 'mixed';

/** The cluster channel on which WORKERS=N siblings without Redis keep each other's pins and usage counters. */
const SIBLING_CHANNEL = 'channel_affinity:siblings';

/**
 * A change passed to sibling workers: set pin `k` to channel `c` for `t` seconds, drop pin `k`, drop the pins
 * under prefix `p`, or add sample `s` to usage key `u` with window `w`.
 */
type SiblingMessage =
  | { k: string; c: number; t: number }
  | { k: string }
  | { p: string }
  | { u: string; s: AffinityUsageSample; w: number; at: number };

/** Escapes Redis glob characters, so a rule name is matched as written. */
function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

export function emptyCounters(): AffinityUsageCounters {
  return {
    cached_token_rate_mode: '',
    hit: 0,
    total: 0,
    window_seconds: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    cached_tokens: 0,
    prompt_cache_hit_tokens: 0,
    last_seen_at: 0,
  };
}

/** Two modes seen under one key make it `mixed`, as new-api records it. */
function mergedMode(previous: string, current: string): string {
  if (!current || previous === current || previous === MIXED) return previous || current;
  return previous ? MIXED : current;
}

/**
 * Where affinity pins (key → channel id) and their usage counters live: in Redis when it is configured and up,
 * so every instance sends a conversation to the same channel; otherwise in this process's bounded memory.
 */
@Injectable()
export class AffinityStore {
  private readonly pins = new TtlLru<number>(100_000);
  private readonly usage = new TtlLru<AffinityUsageCounters>(100_000);

  constructor(private readonly redis: RedisService) {
    // Without Redis, the workers of one WORKERS=N gateway share pins over the cluster's IPC channel, so a
    // conversation keeps its channel whichever worker the primary hands its connection to.
    redis.subscribe(SIBLING_CHANNEL, (message) => this.applyFromSibling(message));
  }

  private applyFromSibling(message: string): void {
    let change: SiblingMessage;
    try {
      change = JSON.parse(message) as SiblingMessage;
    } catch {
      return;
    }
    if ('u' in change) this.addInMemory(change.u, change.s, change.w, change.at);
    else if ('p' in change) {
      for (const key of this.pins.keys()) if (key.startsWith(change.p)) this.pins.delete(key);
    } else if ('c' in change) this.pins.set(change.k, change.c, change.t * 1000);
    else this.pins.delete(change.k);
  }

  /** Tells sibling workers (only: Redis, when up, already holds the state for every instance). */
  private tellSiblings(change: SiblingMessage): void {
    clusterBus.send(SIBLING_CHANNEL, JSON.stringify(change));
  }

  /** `redis` when the counts come from Redis, `memory` otherwise. */
  get backend(): 'redis' | 'memory' {
    return this.redis.ready ? 'redis' : 'memory';
  }

  /** The in-memory capacity (channel_affinity_setting.max_entries); Redis entries are bounded by their TTL. */
  resize(capacity: number): void {
    if (capacity === this.pins.limit) return;
    this.pins.resize(capacity);
    this.usage.resize(capacity);
  }

  async pin(key: string): Promise<number | undefined> {
    const redis = this.redis.ready;
    const raw = redis ? await redis.get(this.redis.key(PIN_PREFIX + key)) : this.pins.get(key);
    const id = Number(raw);
    return Number.isInteger(id) && id > 0 ? id : undefined;
  }

  async setPin(key: string, channelId: number, ttlSeconds: number): Promise<void> {
    const redis = this.redis.ready;
    if (redis) {
      await redis.set(this.redis.key(PIN_PREFIX + key), String(channelId), 'EX', ttlSeconds);
      return;
    }
    this.pins.set(key, channelId, ttlSeconds * 1000);
    this.tellSiblings({ k: key, c: channelId, t: ttlSeconds });
  }

  async dropPin(key: string): Promise<void> {
    const redis = this.redis.ready;
    if (redis) {
      await redis.del(this.redis.key(PIN_PREFIX + key));
      return;
    }
    this.pins.delete(key);
    this.tellSiblings({ k: key });
  }

  /** Every live pin's key (without the namespace). */
  async pinKeys(): Promise<string[]> {
    const redis = this.redis.ready;
    if (!redis) return this.pins.keys();
    const namespace = this.redis.key(PIN_PREFIX);
    const keys: string[] = [];
    for await (const batch of redis.scanStream({ match: `${globEscape(namespace)}*`, count: 1000 }) as AsyncIterable<string[]>)
      for (const key of batch) keys.push(key.slice(namespace.length));
    return keys;
  }

  /** Deletes the pins whose key starts with `prefix` (all of them for ''); returns how many went. */
  async dropPins(prefix = ''): Promise<number> {
    const keys = (await this.pinKeys()).filter((key) => key.startsWith(prefix));
    const redis = this.redis.ready;
    if (!redis) {
      for (const key of keys) this.pins.delete(key);
      this.tellSiblings({ p: prefix });
      return keys.length;
    }
    for (let i = 0; i < keys.length; i += DELETE_BATCH)
      await redis.unlink(...keys.slice(i, i + DELETE_BATCH).map((key) => this.redis.key(PIN_PREFIX + key)));
    return keys.length;
  }

  /** Adds one request to its key's counters; the window restarts its expiry, as new-api's does. */
  async addUsage(key: string, sample: AffinityUsageSample, windowSeconds: number): Promise<void> {
    const hit = sample.cachedTokens > 0;
    const now = Math.floor(Date.now() / 1000);
    const redis = this.redis.ready;
    if (!redis) {
      this.addInMemory(key, sample, windowSeconds, now);
      this.tellSiblings({ u: key, s: sample, w: windowSeconds, at: now });
      return;
    }
    // Counters move with HINCRBY, so instances adding at once lose nothing.
    const k = this.redis.key(USAGE_PREFIX + key);
    const [[, previousMode]] = (await redis
      .multi()
      .hget(k, 'cached_token_rate_mode')
      .hincrby(k, 'total', 1)
      .hincrby(k, 'hit', hit ? 1 : 0)
      .hincrby(k, 'prompt_tokens', sample.promptTokens)
      .hincrby(k, 'completion_tokens', sample.completionTokens)
      .hincrby(k, 'total_tokens', sample.promptTokens + sample.completionTokens)
      .hincrby(k, 'cached_tokens', sample.cachedTokens)
      .hset(k, 'window_seconds', windowSeconds, 'last_seen_at', now)
      .expire(k, windowSeconds)
      .exec()) as [[Error | null, string | null]];
    const mode = mergedMode(previousMode ?? '', sample.mode);
    if (mode !== (previousMode ?? '')) await redis.hset(k, 'cached_token_rate_mode', mode);
  }

  private addInMemory(key: string, sample: AffinityUsageSample, windowSeconds: number, at: number): void {
    const counters = this.usage.get(key) ?? emptyCounters();
    counters.cached_token_rate_mode = mergedMode(counters.cached_token_rate_mode, sample.mode);
    counters.total++;
    if (sample.cachedTokens > 0) counters.hit++;
    counters.window_seconds = windowSeconds;
    counters.last_seen_at = Math.max(counters.last_seen_at, at);
    counters.prompt_tokens += sample.promptTokens;
    counters.completion_tokens += sample.completionTokens;
    counters.total_tokens += sample.promptTokens + sample.completionTokens;
    counters.cached_tokens += sample.cachedTokens;
    this.usage.set(key, counters, windowSeconds * 1000);
  }

  async usageOf(key: string): Promise<AffinityUsageCounters | undefined> {
    const redis = this.redis.ready;
    if (!redis) {
      const counters = this.usage.get(key);
      return counters && { ...counters };
    }
    const hash = await redis.hgetall(this.redis.key(USAGE_PREFIX + key));
    if (Object.keys(hash).length === 0) return undefined;
    const counters = emptyCounters();
    counters.cached_token_rate_mode = hash.cached_token_rate_mode ?? '';
    for (const field of [...COUNTERS, 'hit', 'total', 'window_seconds', 'last_seen_at'] as const)
      counters[field] = Number(hash[field] ?? 0);
    return counters;
  }
}
