import { describe, expect, it } from 'vitest';
import { BatchSizer } from './batch-sizer.js';

describe('BatchSizer', () => {
  it('doubles while batches are quick, up to the maximum', () => {
    const sizer = new BatchSizer(20, 100, 500);
    sizer.record(1);
    expect(sizer.current).toBe(200);
    sizer.record(1);
    sizer.record(1);
    expect(sizer.current).toBe(500);
  });

  it('halves when a batch is slow, down to the minimum, and holds near the target', () => {
    const sizer = new BatchSizer(20, 100, 5000);
    for (let i = 0; i < 5; i++) sizer.record(1);
    expect(sizer.current).toBe(3200);
    sizer.record(100);
    expect(sizer.current).toBe(1600);
    sizer.record(20);
    expect(sizer.current).toBe(1600);
    for (let i = 0; i < 10; i++) sizer.record(1000);
    expect(sizer.current).toBe(100);
  });
});
