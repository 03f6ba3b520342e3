import { describe, expect, it } from 'vitest';
import {
  chooseKeyIndex,
  enabledKeyIndexes,
  KeyStatus,
  keysFromInput,
  newMultiKeyInfo,
  parseChannelInfo,
  splitKeys,
  updateMultiKeys,
  withKeyStatus,
  withoutKey,
} from './multi-key.js';

describe('multi-key channel_info', () => {
  it('reads new-api channel_info text, parsed objects, and anything unreadable as single-key', () => {
    const text =
      '{"is_multi_key":true,"multi_key_size":3,"multi_key_status_list":{"1":3},"multi_key_disabled_reason":{"1":"401"},"multi_key_polling_index":2,"multi_key_mode":"polling"}';
    expect(parseChannelInfo(text)).toEqual({
      is_multi_key: true,
      multi_key_size: 3,
      multi_key_status_list: { 1: 3 },
      multi_key_disabled_reason: { 1: '401' },
      multi_key_polling_index: 2,
      multi_key_mode: 'polling',
    });
    expect(parseChannelInfo(JSON.parse(text)).multi_key_mode).toBe('polling');
    // new-api writes `null` for an empty status map.
    expect(parseChannelInfo('{"is_multi_key":true,"multi_key_status_list":null,"multi_key_mode":"random"}').multi_key_status_list).toEqual(
      {},
    );
    for (const bad of ['', 'not json', '[1]', 'null', null, undefined]) expect(parseChannelInfo(bad).is_multi_key).toBe(false);
    expect(parseChannelInfo('{"is_multi_key":true,"multi_key_mode":"sometimes"}').multi_key_mode).toBe('');
  });

  it('splits keys as new-api does: lines (ends trimmed, inner positions kept) or a JSON array of credentials', () => {
    expect(splitKeys('\nk1\r\nk2\n\nk3\n')).toEqual(['k1', 'k2', '', 'k3']);
    expect(splitKeys('[{"type":"service_account","id":1},"plain"]')).toEqual(['{"type":"service_account","id":1}', 'plain']);
    expect(splitKeys('   ')).toEqual([]);
    expect(keysFromInput('a\nb\na\n\n c ')).toEqual(['a', 'b', 'c']);
  });
});

describe('key choice', () => {
  const info = { ...newMultiKeyInfo(4, 'polling'), multi_key_status_list: { 1: KeyStatus.AutoDisabled, 3: KeyStatus.ManuallyDisabled } };
  const keys = ['a', 'b', 'c', 'd'];

  it('lists only enabled keys (a missing status is enabled; an empty key never is)', () => {
    expect(enabledKeyIndexes(info, keys)).toEqual([0, 2]);
    expect(enabledKeyIndexes(newMultiKeyInfo(3, 'random'), ['x', '', 'z'])).toEqual([0, 2]);
  });

  it('polls from the cursor to the next enabled key, wrapping, and resets a cursor out of range', () => {
    const enabled = enabledKeyIndexes(info, keys);
    expect(chooseKeyIndex('polling', enabled, 4, 0)).toBe(0);
    expect(chooseKeyIndex('polling', enabled, 4, 1)).toBe(2);
    expect(chooseKeyIndex('polling', enabled, 4, 3)).toBe(0);
    expect(chooseKeyIndex('polling', enabled, 4, 99)).toBe(0);
  });

  it('picks at random among enabled keys only, and nothing when none is enabled', () => {
    const enabled = enabledKeyIndexes(info, keys);
    expect(chooseKeyIndex('random', enabled, 4, 0, () => 0)).toBe(0);
    expect(chooseKeyIndex('random', enabled, 4, 0, () => 0.99)).toBe(2);
    expect(chooseKeyIndex('random', [], 4, 0)).toBeUndefined();
    expect(chooseKeyIndex('', [2, 3], 4, 0)).toBe(2);
  });
});

describe('key edits', () => {
  it('records a disable with reason and time, and clears them on enable', () => {
    const disabled = withKeyStatus(newMultiKeyInfo(2, 'random'), 1, KeyStatus.AutoDisabled, 'status 401', 1700);
    expect(disabled).toMatchObject({
      multi_key_status_list: { 1: 3 },
      multi_key_disabled_reason: { 1: 'status 401' },
      multi_key_disabled_time: { 1: 1700 },
    });
    const enabled = withKeyStatus(disabled, 1, KeyStatus.Enabled, '', 1800);
    expect(enabled).toMatchObject({ multi_key_status_list: {}, multi_key_disabled_reason: {}, multi_key_disabled_time: {} });
  });

  it('appends keys keeping positions and statuses, or replaces the list with every key enabled', () => {
    const info = withKeyStatus(newMultiKeyInfo(2, 'polling'), 0, KeyStatus.ManuallyDisabled, 'off', 1);
    const appended = updateMultiKeys('k1\nk2', info, 'k3\nk1', 'append');
    expect(appended.key).toBe('k1\nk2\nk3');
    expect(appended.info).toMatchObject({ multi_key_size: 3, multi_key_status_list: { 0: 2 }, multi_key_mode: 'polling' });
    const replaced = updateMultiKeys('k1\nk2', info, 'n1\nn2\nn3', 'replace');
    expect(replaced).toEqual({ key: 'n1\nn2\nn3', info: newMultiKeyInfo(3, 'polling') });
  });

  it('shifts later statuses down when a key is deleted', () => {
    let info = newMultiKeyInfo(4, 'polling');
    info = withKeyStatus(info, 1, KeyStatus.AutoDisabled, 'x', 1);
    info = withKeyStatus(info, 3, KeyStatus.ManuallyDisabled, 'y', 2);
    const next = withoutKey({ ...info, multi_key_polling_index: 3 }, 1, 4);
    expect(next).toMatchObject({
      multi_key_size: 3,
      multi_key_status_list: { 2: 2 },
      multi_key_disabled_reason: { 2: 'y' },
      multi_key_polling_index: 0,
    });
  });
});
