import { type ClusterCall, THROTTLE_OP } from '@gw/core';
import { applyWindow, MODEL_WINDOW_OP, SlidingWindowLog } from '@gw/relay';
import { ThrottlerStorageService } from '@nestjs/throttler';

type WindowArgs = Parameters<typeof applyWindow> extends [unknown, ...infer Rest] ? Rest : never;
type ThrottleArgs = Parameters<ThrottlerStorageService['increment']>;

/**
 * The rate-limit counters a WORKERS=N gateway keeps in its primary when Redis is absent or down: the API
 * limits (@nestjs/throttler's in-memory storage) and the per-user model request logs. Every worker asks here,
 * so the limits are exact across the workers, as in a single process.
 */
export function sharedCounters(): { run(call: ClusterCall): Promise<unknown>; stop(): void } {
  const throttler = new ThrottlerStorageService();
  const windows = new SlidingWindowLog();
  let longestWindowMs = 0;
  // The cluster primary runs no Nest application, so there is no scheduler registry to register this sweep with.
  const sweeper = setInterval(() => windows.sweep(longestWindowMs), 60_000);
  sweeper.unref();
  return {
    async run(call) {
      if (call.op === THROTTLE_OP) return throttler.increment(...(call.args as ThrottleArgs));
      if (call.op === MODEL_WINDOW_OP) {
        const args = call.args as WindowArgs;
        longestWindowMs = Math.max(longestWindowMs, args[3]);
        return applyWindow(windows, ...args);
      }
      throw new Error(`unknown operation ${call.op}`);
    },
    stop() {
      clearInterval(sweeper);
      throttler.onApplicationShutdown();
    },
  };
}
