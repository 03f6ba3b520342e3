import { PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { SystemStatusService } from '@gw/core';
import { OptionService } from '@gw/option';

export interface PerformanceStats {
  /** The machine's load as the relay's overload check reads it (percent). */
  system_status: { cpu_usage: number; memory_usage: number; disk_usage: number; sampled_at: number };
  /** This gateway process (one worker under WORKERS): new-api's alloc and sys are the V8 heap in use and the RSS. */
  memory_stats: { alloc: number; sys: number; heap_total: number; external: number; num_gc: number };
  /** The filesystem of DATA_DIR, in bytes. */
  disk_space_info: { total: number; free: number; used: number; used_percent: number };
  config: {
    monitor_enabled: boolean;
    monitor_cpu_threshold: number;
    monitor_memory_threshold: number;
    monitor_disk_threshold: number;
  };
  process: { pid: number; uptime_seconds: number; node_version: string };
}

/** What the root's performance page shows and does: the load figures, this process's memory, a full collection on demand. */
@Injectable()
export class PerformanceService implements OnModuleInit, OnModuleDestroy {
  private collections = 0;
  private readonly observer = new PerformanceObserver((list) => (this.collections += list.getEntries().length));

  constructor(
    private readonly load: SystemStatusService,
    private readonly options: OptionService,
  ) {}

  onModuleInit(): void {
    this.observer.observe({ entryTypes: ['gc'] });
  }

  onModuleDestroy(): void {
    this.observer.disconnect();
  }

  stats(): PerformanceStats {
    const status = this.load.current();
    const memory = process.memoryUsage();
    return {
      system_status: {
        cpu_usage: status.cpuUsage,
        memory_usage: status.memoryUsage,
        disk_usage: status.diskUsage,
        sampled_at: Math.floor(status.sampledAt / 1000),
      },
      memory_stats: {
        alloc: memory.heapUsed,
        sys: memory.rss,
        heap_total: memory.heapTotal,
        external: memory.external,
        num_gc: this.collections,
      },
      disk_space_info: { ...status.disk, used_percent: status.diskUsage },
      config: {
        monitor_enabled: this.options.get('performance_setting.monitor_enabled'),
        monitor_cpu_threshold: this.options.get('performance_setting.monitor_cpu_threshold'),
        monitor_memory_threshold: this.options.get('performance_setting.monitor_memory_threshold'),
        monitor_disk_threshold: this.options.get('performance_setting.monitor_disk_threshold'),
      },
      process: { pid: process.pid, uptime_seconds: Math.floor(process.uptime()), node_version: process.version },
    };
  }

  /** A full, blocking collection (new-api's "force GC"); the heap in use before and after, in bytes. */
  collectGarbage(): { before: number; after: number } {
    const before = process.memoryUsage().heapUsed;
    fullCollection()();
    return { before, after: process.memoryUsage().heapUsed };
  }
}

let gc: (() => void) | undefined;

/**
 * V8's gc() without starting Node with --expose-gc: the flag is set at run time and a fresh context, which
 * reads it when it is made, hands its gc function back. It collects the whole isolate, this context included.
 */
function fullCollection(): () => void {
  if (!gc) {
    gc = (globalThis as { gc?: () => void }).gc;
    if (!gc) {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as () => void;
    }
  }
  return gc;
}
