import { readFileSync, statfsSync } from 'node:fs';
import { cpus, freemem, totalmem } from 'node:os';

/** The machine's load as new-api's performance monitor reads it: percentages of CPU, memory and disk in use. */
export interface SystemStatus {
  /** CPU busy time over the last sampling period, all cores together (0-100). */
  cpuUsage: number;
  /** Memory in use: total less what the kernel says is available (0-100). */
  memoryUsage: number;
  /** Space in use on the filesystem of the data directory (0-100). */
  diskUsage: number;
  /** Disk figures in bytes (what the stats page shows beside the percentage). */
  disk: { total: number; free: number; used: number };
  /** When the figures were read (ms since the epoch); 0 before the first reading. */
  sampledAt: number;
}

export interface CpuTimes {
  busy: number;
  total: number;
}

/** Busy and total CPU time of every core so far (ms). */
export function cpuTimes(): CpuTimes {
  let busy = 0;
  let total = 0;
  for (const { times } of cpus()) {
    const all = times.user + times.nice + times.sys + times.idle + times.irq;
    total += all;
    busy += all - times.idle;
  }
  return { busy, total };
}

/** The busy share between two readings, in percent; 0 when no time passed. */
export function cpuPercent(before: CpuTimes, after: CpuTimes): number {
  const total = after.total - before.total;
  return total > 0 ? clampPercent(((after.busy - before.busy) / total) * 100) : 0;
}

/**
 * Memory in use, in percent: on Linux MemTotal less MemAvailable from /proc/meminfo (page cache the kernel can
 * drop counts as available, as `free` and gopsutil read it); elsewhere Node's free memory.
 */
export function memoryPercent(meminfo = readMeminfo()): number {
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(meminfo ?? '')?.[1] ?? Number.NaN);
  const total = field('MemTotal');
  const available = field('MemAvailable');
  if (total > 0 && available >= 0) return clampPercent(((total - available) / total) * 100);
  return clampPercent(((totalmem() - freemem()) / totalmem()) * 100);
}

function readMeminfo(): string | undefined {
  try {
    return readFileSync('/proc/meminfo', 'utf8');
  } catch {
    return undefined;
  }
}

/** Space of the filesystem holding `path`: used counts what ordinary users can no longer write, as `df` shows it. */
export function diskSpace(path: string): SystemStatus['disk'] & { usage: number } {
  try {
    const fs = statfsSync(path);
    const total = fs.blocks * fs.bsize;
    const free = fs.bavail * fs.bsize;
    const used = (fs.blocks - fs.bfree) * fs.bsize;
    // df's Use%: used over what users can reach (used + available), so the root-reserved blocks are left out.
    const reachable = used + free;
    return { total, free, used, usage: reachable > 0 ? clampPercent((used / reachable) * 100) : 0 };
  } catch {
    return { total: 0, free: 0, used: 0, usage: 0 };
  }
}

function clampPercent(value: number): number {
  return Math.min(100, Math.max(0, Math.round(value * 10) / 10));
}
