import { describe, expect, it } from 'vitest';
import { likePattern } from './log-filter.js';
import { toLogRow } from './log-row.js';
import { LogType } from './log-type.js';

describe('toLogRow', () => {
  it('fills defaults: now, empty strings, zeros, no other', () => {
    const before = Math.floor(Date.now() / 1000);
    const row = toLogRow({ userId: 1, username: 'u', type: LogType.System });
    expect(row.createdAt).toBeGreaterThanOrEqual(before);
    expect(row).toMatchObject({
      content: '',
      tokenName: '',
      modelName: '',
      quota: 0,
      useTime: 0,
      isStream: false,
      channelId: 0,
      group: '',
      ip: '',
      requestId: '',
      other: '',
    });
  });

  it('cuts strings to the column widths and truncates non-integers', () => {
    const row = toLogRow({
      userId: 1,
      username: 'x'.repeat(300),
      type: LogType.Consume,
      group: 'g'.repeat(70),
      quota: 12.9,
      useTime: Number.NaN,
    });
    expect([row.username!.length, row.group!.length, row.quota, row.useTime]).toEqual([255, 64, 12, 0]);
  });

  it('drops NUL characters (PostgreSQL refuses them) and leaves other text as it is', () => {
    const row = toLogRow({ userId: 1, username: 'a\0b', type: LogType.Error, content: 'x\0y\0', modelName: 'gpt-4o' });
    expect([row.username, row.content, row.modelName]).toEqual(['ab', 'xy', 'gpt-4o']);
  });

  it('keeps every known type', () => {
    for (const type of [LogType.TopUp, LogType.Consume, LogType.Manage, LogType.System, LogType.Error])
      expect(toLogRow({ userId: 1, username: 'u', type }).type).toBe(type);
  });

  it('stores an unknown type as 0 and other as JSON text', () => {
    const row = toLogRow({ userId: 1, username: 'u', type: 42 as LogType, other: { a: 1 } });
    expect([row.type, row.other]).toEqual([0, '{"a":1}']);
  });
});

describe('likePattern', () => {
  it('keeps % as the wildcard and makes _ and ! literal', () => {
    expect(likePattern('gpt_4%')).toBe('gpt!_4%');
    expect(likePattern('a!b')).toBe('a!!b');
  });
});
