import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomUUID } from 'node:crypto';
import { Brackets, type Repository } from 'typeorm';
import { APP_CONFIG, RedisService, type AppConfig } from '@gw/core';
import { JobLockEntity } from './job-lock.entity.js';

/** A job may not run longer than this; a crashed holder's lock frees itself after it. */
const LOCK_TTL_MS = 30 * 60_000;

/**
 * Makes a scheduled job run on one instance at a time among those sharing a database: a Redis lock
 * when Redis is configured, else a lease row in the database (a conditional UPDATE takes over an
 * expired lease, an INSERT creates a missing one; the primary key lets only one instance win).
 */
@Injectable()
export class JobLockService {
  private readonly logger = new Logger('JobLock');
  private readonly instanceId = randomUUID();
  /** The database identity, so that deployments sharing one Redis namespace but not a database do not block each other. */
  private readonly databaseHash: string;

  constructor(
    @InjectRepository(JobLockEntity) private readonly rows: Repository<JobLockEntity>,
    private readonly redis: RedisService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    const db = config.database;
    const identity = db.type === 'sqlite' ? db.path : `${db.host}:${db.port}/${db.database}`;
    this.databaseHash = createHash('sha256').update(`${db.type}:${identity}`).digest('hex').slice(0, 16);
  }

  /** The Redis key of a job's lock (exposed for tests and operators). */
  redisKey(name: string): string {
    return this.redis.key(`lock:${name}:${this.databaseHash}`);
  }

  /**
   * Runs `work` if this instance gets the lock; undefined when another run holds it. `ttlMs` bounds how
   * long a crashed holder blocks the job: short jobs (task polling every 15 s) pass a short one.
   */
  async exclusive<T>(name: string, work: () => Promise<T>, ttlMs = LOCK_TTL_MS): Promise<T | undefined> {
    const client = this.redis.client;
    if (client) {
      const key = this.redisKey(name);
      const token = randomUUID();
      if ((await client.set(key, token, 'PX', ttlMs, 'NX').catch(() => null)) !== 'OK') return undefined;
      try {
        return await work();
      } finally {
        // Release only our own lock.
        await client
          .eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", 1, key, token)
          .catch(() => undefined);
      }
    }
    if (!(await this.acquire(name, ttlMs))) return undefined;
    try {
      return await work();
    } finally {
      await this.rows
        .update({ name, holder: this.instanceId }, { expiresAt: 0 })
        .catch((e: Error) => this.logger.warn(`release ${name}: ${e.message}`));
    }
  }

  private async acquire(name: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const holder = this.instanceId;
    const taken = await this.rows
      .createQueryBuilder()
      .update(JobLockEntity)
      .set({ holder, expiresAt: now + ttlMs })
      .where('name = :name', { name })
      .andWhere(new Brackets((w) => w.where('expires_at < :now', { now }).orWhere('holder = :holder', { holder })))
      .execute();
    if ((taken.affected ?? 0) > 0) return true;
    try {
      await this.rows.insert({ name, holder, expiresAt: now + ttlMs });
      return true;
    } catch {
      // The row exists and someone else's lease is still running.
      return false;
    }
  }
}
