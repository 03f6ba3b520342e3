import { afterAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '../config/app-config.js';
import { RedisService } from './redis.service.js';

const redisUrl = process.env.TEST_REDIS_URL;

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.skipIf(!redisUrl)('RedisService on a real Redis', () => {
  const config = { redis: { url: redisUrl ?? '', prefix: `test:pubsub:${process.pid}:${Date.now()}:` } } as AppConfig;
  const a = new RedisService(config);
  const b = new RedisService(config);
  afterAll(() => Promise.all([a.onModuleDestroy(), b.onModuleDestroy()]));

  it('sends what it published while its own connection was down once it is back, to instances that stayed up', async () => {
    const heard: string[] = [];
    b.subscribe('changes', (message) => heard.push(message));
    await until(() => a.client?.status === 'ready', 'A connected');
    // Probes until B's subscription is in place (subscribing is asynchronous).
    const deadline = Date.now() + 10_000;
    while (!heard.includes('probe') && Date.now() < deadline) {
      await a.publish('changes', 'probe');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(heard).toContain('probe');

    // A's connection drops (and comes back by itself); B's stays up and has nothing to catch up on.
    a.client?.disconnect(true);
    await until(() => a.client?.status !== 'ready', 'A to lose its connection');
    await a.publish('changes', 'made-while-away');
    await until(() => heard.includes('made-while-away'), 'the change made while A was away, on B');
    expect(heard.filter((m) => m === 'made-while-away')).toHaveLength(1);
  });
});
