import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { cpuPercent, cpuTimes, diskSpace, memoryPercent } from './system-status.js';

describe('system status readings', () => {
  it('reads CPU use as the busy share of the time between two readings', () => {
    expect(cpuPercent({ busy: 100, total: 1000 }, { busy: 400, total: 2000 })).toBe(30);
    expect(cpuPercent({ busy: 100, total: 1000 }, { busy: 100, total: 1000 })).toBe(0);
    const now = cpuTimes();
    expect(now.total).toBeGreaterThan(now.busy);
  });

  it("reads memory use as total less available from /proc/meminfo (page cache counts as available), as free's", () => {
    const meminfo = 'MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    12000000 kB\nCached: 9000000 kB\n';
    expect(memoryPercent(meminfo)).toBe(25);
    // Without /proc (another OS), Node's own free memory.
    const fallback = memoryPercent('');
    expect(fallback).toBeGreaterThan(0);
    expect(fallback).toBeLessThanOrEqual(100);
  });

  it('reads the disk holding a path as df does, and none for a path that does not exist', () => {
    const disk = diskSpace(tmpdir());
    expect(disk.total).toBeGreaterThan(0);
    expect(disk.used + disk.free).toBeLessThanOrEqual(disk.total);
    expect(disk.usage).toBeGreaterThanOrEqual(0);
    expect(disk.usage).toBeLessThanOrEqual(100);
    expect(diskSpace('/no/such/directory/here')).toEqual({ total: 0, free: 0, used: 0, usage: 0 });
  });
});
