import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { requireOnFirstUse } from '../modules/on-first-use.js';
import { clusterBus } from './cluster-bus.js';

/** Loaded only when REDIS_CONN_STRING is set. */
const ioredis = requireOnFirstUse<typeof import('ioredis')>('ioredis');

/** Distinct messages kept per channel while Redis is away (see RedisService.unsent). */
const MAX_UNSENT_PER_CHANNEL = 100;

/**
 * The optional shared Redis. Without REDIS_CONN_STRING every cache and limiter stays in memory;
 * with it, `client` is set and a second connection carries pub/sub invalidations.
 */
@Injectable()
export class RedisService implements OnModuleDestroy {
  private readonly logger = new Logger('Redis');
  readonly client?: Redis;
  /** Prepended to every key and channel (REDIS_KEY_PREFIX). */
  readonly prefix: string;
  private subscriber?: Redis;
  private readonly handlers = new Map<string, Set<(message: string) => void>>();
  private readonly resubscribedListeners = new Set<() => void>();
  /**
   * Messages published while this instance's connection was down, sent once it is back. The other instances'
   * subscribers may already have reconnected (and done their catch-up reload) by then: without this, a change
   * made here in that window reached them only at the next SYNC_FREQUENCY reload. Distinct messages only.
   */
  private readonly unsent = new Map<string, Set<string>>();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.prefix = config.redis?.prefix ?? 'gw:';
    clusterBus.listen((channel, message) => this.deliver(channel, message));
    if (!config.redis) return;
    this.client = this.connect(config.redis.url);
  }

  /** A namespaced Redis key. */
  key(name: string): string {
    return this.prefix + name;
  }

  get enabled(): boolean {
    return this.client !== undefined;
  }

  /** The client when it is connected right now; undefined without Redis or during an outage (callers fall back to memory). */
  get ready(): Redis | undefined {
    return this.client?.status === 'ready' ? this.client : undefined;
  }

  /** Sends a message to every instance (including this one) listening on `channel`. */
  async publish(channel: string, message: string): Promise<void> {
    if (this.client?.status !== 'ready') {
      // Without Redis, this instance and its sibling workers hear it. While Redis is down, the other instances
      // hear it when this connection is back (or reload at SYNC_FREQUENCY, whichever comes first).
      this.deliverHere(channel, message);
      if (this.client) this.keepUnsent(channel, message);
      return;
    }
    try {
      await this.client.publish(this.key(channel), message);
    } catch (error) {
      this.logger.warn(`publish ${channel}: ${(error as Error).message}`);
      this.deliverHere(channel, message);
      this.keepUnsent(channel, message);
    }
  }

  private keepUnsent(channel: string, message: string): void {
    const messages = this.unsent.get(channel) ?? new Set<string>();
    // Bounded: a long outage with many distinct messages keeps the latest; SYNC_FREQUENCY covers the rest.
    if (messages.size >= MAX_UNSENT_PER_CHANNEL) messages.delete(messages.values().next().value as string);
    messages.add(message);
    this.unsent.set(channel, messages);
  }

  /** Publishes what was kept during an outage (the connection is ready again). */
  private sendUnsent(client: Redis): void {
    const pending = [...this.unsent].flatMap(([channel, messages]) => [...messages].map((message) => [channel, message] as const));
    this.unsent.clear();
    for (const [channel, message] of pending)
      client.publish(this.key(channel), message).catch((error: Error) => {
        this.logger.warn(`publish ${channel} after reconnecting: ${error.message}`);
        this.keepUnsent(channel, message);
      });
  }

  private deliverHere(channel: string, message: string): void {
    this.deliver(channel, message);
    clusterBus.send(channel, message);
  }

  private deliver(channel: string, message: string): void {
    for (const handler of this.handlers.get(channel) ?? []) handler(message);
  }

  subscribe(channel: string, handler: (message: string) => void): void {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      if (this.client) {
        this.subscriber ??= this.createSubscriber();
        void this.subscriber
          .subscribe(this.key(channel))
          .catch((error: Error) => this.logger.warn(`subscribe ${channel}: ${error.message}`));
      }
    }
    set.add(handler);
  }

  /**
   * Runs `listener` each time the subscription comes back after the connection to Redis was lost: what other
   * instances published meanwhile never arrived, so a cache that relies on the messages reloads instead of
   * waiting for the next SYNC_FREQUENCY reload.
   */
  onResubscribed(listener: () => void): void {
    this.resubscribedListeners.add(listener);
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([this.client?.quit(), this.subscriber?.quit()]);
  }

  private createSubscriber(): Redis {
    // No ready check: it sends INFO, which a connection in subscriber mode refuses, and the subscriber then never
    // comes up on some start-ups (instances missed each other's invalidations).
    const subscriber = this.client!.duplicate({ enableReadyCheck: false });
    subscriber.on('message', (channel: string, message: string) => {
      this.deliver(channel.slice(this.prefix.length), message);
    });
    subscriber.on('error', (error: Error) => this.logger.warn(error.message));
    let lost = false;
    subscriber.on('close', () => {
      lost = true;
    });
    subscriber.on('ready', () => {
      if (!lost) return;
      lost = false;
      // ioredis re-sends the subscriptions on 'ready'; reloading after them misses nothing published since.
      setImmediate(() => {
        for (const listener of this.resubscribedListeners) listener();
      });
    });
    return subscriber;
  }

  private connect(url: string): Redis {
    // A short connect timeout and bounded retries keep a Redis outage from stalling requests.
    const client = new (ioredis().Redis)(url, { connectTimeout: 2000, maxRetriesPerRequest: 2, enableOfflineQueue: true });
    client.on('error', (error: Error) => this.logger.warn(error.message));
    client.on('ready', () => this.sendUnsent(client));
    return client;
  }
}
