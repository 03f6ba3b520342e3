import { SchedulerRegistry } from '@nestjs/schedule';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cancelScheduled, scheduleEvery } from './periodic-job.js';

describe('scheduleEvery', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs the job on its interval under its name in the registry until cancelled', async () => {
    const registry = new SchedulerRegistry();
    let runs = 0;
    scheduleEvery(
      registry,
      'job',
      1000,
      () => runs++,
      () => undefined,
    );
    expect(registry.getIntervals()).toEqual(['job']);
    await vi.advanceTimersByTimeAsync(3000);
    expect(runs).toBe(3);
    cancelScheduled(registry, 'job');
    expect(registry.getIntervals()).toEqual([]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(runs).toBe(3);
    cancelScheduled(registry, 'job');
  });

  it('hands thrown and rejected failures to onError and keeps running', async () => {
    const registry = new SchedulerRegistry();
    const errors: string[] = [];
    let runs = 0;
    const job = () => {
      runs++;
      if (runs === 1) throw new Error('thrown');
      return Promise.reject(new Error('rejected'));
    };
    scheduleEvery(registry, 'failing', 1000, job, (e) => errors.push(e.message));
    await vi.advanceTimersByTimeAsync(2000);
    expect(errors).toEqual(['thrown', 'rejected']);
    cancelScheduled(registry, 'failing');
  });

  it('replaces a job registered under the same name instead of running both', async () => {
    const registry = new SchedulerRegistry();
    const ran: string[] = [];
    scheduleEvery(
      registry,
      'sync',
      1000,
      () => ran.push('first'),
      () => undefined,
    );
    scheduleEvery(
      registry,
      'sync',
      1000,
      () => ran.push('second'),
      () => undefined,
    );
    await vi.advanceTimersByTimeAsync(1000);
    expect(ran).toEqual(['second']);
    cancelScheduled(registry, 'sync');
  });
});
