import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { cancelScheduled, scheduleEvery } from '../schedule/periodic-job.js';
import { type CpuTimes, cpuPercent, cpuTimes, diskSpace, memoryPercent, type SystemStatus } from './system-status.js';

/** How often the machine's load is read: the CPU figure is the busy share over this period. */
export const SYSTEM_STATUS_SAMPLE_MS = 2_000;
const JOB = 'system-status';

/**
 * The machine's CPU, memory and disk use, read every SYSTEM_STATUS_SAMPLE_MS in the background, so the relay's
 * overload check (performance_setting.monitor_*) and the root's performance page read a figure without
 * waiting. The disk is the one holding DATA_DIR (the SQLite database and its WAL). A few syscalls per reading.
 */
@Injectable()
export class SystemStatusService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('SystemStatus');
  private lastCpu: CpuTimes = cpuTimes();
  private status: SystemStatus = { cpuUsage: 0, memoryUsage: 0, diskUsage: 0, disk: { total: 0, free: 0, used: 0 }, sampledAt: 0 };

  constructor(
    private readonly registry: SchedulerRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.sample();
    scheduleEvery(
      this.registry,
      JOB,
      SYSTEM_STATUS_SAMPLE_MS,
      () => this.sample(),
      (error) => this.logger.warn(error.message),
    );
  }

  onModuleDestroy(): void {
    cancelScheduled(this.registry, JOB);
  }

  current(): SystemStatus {
    return this.status;
  }

  /** Takes a reading now (the schedule's job; tests call it to see a change at once). */
  sample(): SystemStatus {
    const cpu = cpuTimes();
    const { usage, ...disk } = diskSpace(this.config.dataDir);
    this.status = { cpuUsage: cpuPercent(this.lastCpu, cpu), memoryUsage: memoryPercent(), diskUsage: usage, disk, sampledAt: Date.now() };
    this.lastCpu = cpu;
    return this.status;
  }
}
