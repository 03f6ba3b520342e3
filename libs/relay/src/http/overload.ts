import type { SystemStatus } from '@gw/core';
import type { OptionService } from '@gw/option';

/** Why the relay sheds a call: new-api's error code and a message saying which figure is over which line. */
export interface Overload {
  code: 'system_cpu_overloaded' | 'system_memory_overloaded' | 'system_disk_overloaded';
  message: string;
}

const CHECKS = [
  { code: 'system_cpu_overloaded', what: 'CPU', figure: 'cpuUsage', threshold: 'performance_setting.monitor_cpu_threshold' },
  { code: 'system_memory_overloaded', what: 'memory', figure: 'memoryUsage', threshold: 'performance_setting.monitor_memory_threshold' },
  { code: 'system_disk_overloaded', what: 'disk', figure: 'diskUsage', threshold: 'performance_setting.monitor_disk_threshold' },
] as const;

/**
 * new-api's SystemPerformanceCheck: with the performance monitor on, a relay call is refused (503) while the
 * machine's CPU, memory or disk use is above its threshold, in that order; a threshold of 0 is no check. As
 * new-api compares them, the whole percent must exceed the threshold (90.9 % passes a threshold of 90).
 */
export function overloadOf(status: SystemStatus, options: Pick<OptionService, 'get'>): Overload | undefined {
  if (!options.get('performance_setting.monitor_enabled')) return undefined;
  for (const check of CHECKS) {
    const threshold = options.get(check.threshold);
    const usage = Math.trunc(status[check.figure]);
    if (threshold > 0 && usage > threshold)
      return {
        code: check.code,
        message: `the system's ${check.what} use (${usage}%) is above its limit of ${threshold}%; try again later`,
      };
  }
  return undefined;
}

/**
 * Relay paths the monitor leaves alone, as new-api's routes without the check: the model lists (GET /v1/models,
 * /v1beta/models, /v1beta/openai/models) and the OpenAI billing routes under /dashboard/.
 */
export function exemptFromOverload(method: string | undefined, path: string): boolean {
  const lower = path.toLowerCase();
  if (lower.startsWith('/dashboard/')) return true;
  return method === 'GET' && /^\/v1(?:beta(?:\/openai)?)?\/models(?:\/|$)/.test(lower);
}
