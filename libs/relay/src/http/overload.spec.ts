import { describe, expect, it } from 'vitest';
import type { SystemStatus } from '@gw/core';
import { exemptFromOverload, overloadOf } from './overload.js';

const status = (cpu: number, memory: number, disk: number): SystemStatus => ({
  cpuUsage: cpu,
  memoryUsage: memory,
  diskUsage: disk,
  disk: { total: 0, free: 0, used: 0 },
  sampledAt: 1,
});

function settings(values: Record<string, unknown>) {
  const all: Record<string, unknown> = {
    'performance_setting.monitor_enabled': true,
    'performance_setting.monitor_cpu_threshold': 90,
    'performance_setting.monitor_memory_threshold': 90,
    'performance_setting.monitor_disk_threshold': 95,
    ...values,
  };
  return { get: (key: string) => all[key] } as never;
}

describe('overloadOf (new-api SystemPerformanceCheck)', () => {
  it('lets everything through while the monitor is off', () => {
    expect(overloadOf(status(100, 100, 100), settings({ 'performance_setting.monitor_enabled': false }))).toBeUndefined();
  });

  it('names the first figure over its threshold: CPU, then memory, then disk', () => {
    expect(overloadOf(status(95, 95, 99), settings({}))?.code).toBe('system_cpu_overloaded');
    expect(overloadOf(status(50, 95, 99), settings({}))).toEqual({
      code: 'system_memory_overloaded',
      message: "the system's memory use (95%) is above its limit of 90%; try again later",
    });
    expect(overloadOf(status(50, 50, 96), settings({}))?.code).toBe('system_disk_overloaded');
    expect(overloadOf(status(50, 50, 50), settings({}))).toBeUndefined();
  });

  it('compares whole percents, above (not at) the threshold, and skips a threshold of 0', () => {
    expect(overloadOf(status(90.9, 0, 0), settings({}))).toBeUndefined();
    expect(overloadOf(status(91, 0, 0), settings({}))?.code).toBe('system_cpu_overloaded');
    expect(overloadOf(status(100, 0, 0), settings({ 'performance_setting.monitor_cpu_threshold': 0 }))).toBeUndefined();
  });
});

describe('exemptFromOverload', () => {
  it('exempts the model lists and the billing routes, nothing else', () => {
    for (const path of ['/v1/models', '/v1/models/gpt-4o', '/v1beta/models', '/v1beta/openai/models', '/V1/Models/'])
      expect(exemptFromOverload('GET', path), path).toBe(true);
    expect(exemptFromOverload('GET', '/dashboard/billing/usage')).toBe(true);
    for (const [method, path] of [
      ['POST', '/v1/chat/completions'],
      ['POST', '/v1beta/models/gemini-2.5-flash:generateContent'],
      ['GET', '/v1/realtime'],
      ['POST', '/suno/submit/music'],
      ['POST', '/pg/chat/completions'],
      ['DELETE', '/v1/models/x'],
    ] as const)
      expect(exemptFromOverload(method, path), `${method} ${path}`).toBe(false);
  });
});
