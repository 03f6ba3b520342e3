import { Injectable } from '@nestjs/common';
import { BusinessError, NotFoundError } from '@gw/core';
import type { MultiKeyManageRequest } from '@gw/contracts';
import { nowSeconds } from '@gw/database';
import { ChannelStatus } from './channel.entity.js';
import { ChannelRepository } from './channel.repository.js';
import { ChannelRouter } from './channel-router.js';
import { channelId, parseInteger } from './channel-input.js';
import {
  enabledKeyIndexes,
  KeyStatus,
  keyStatus,
  parseChannelInfo,
  splitKeys,
  withKeyStatus,
  withoutKey,
  type ChannelInfo,
} from './multi-key.js';

export interface KeyStatusView {
  index: number;
  status: number;
  disabled_reason: string;
  disabled_time: number;
  /** The first and last characters only: keys never leave the server whole. */
  key_preview: string;
}

export interface KeyStatusList {
  keys: KeyStatusView[];
  total: number;
  enabled_count: number;
  manual_disabled_count: number;
  auto_disabled_count: number;
  multi_key_mode: string;
}

function preview(key: string): string {
  return key.length <= 10 ? `${key.slice(0, 2)}***` : `${key.slice(0, 6)}***${key.slice(-4)}`;
}

function statusList(keys: string[], info: ChannelInfo): KeyStatusList {
  const views = keys.map((key, index) => ({
    index,
    status: keyStatus(info, index),
    disabled_reason: info.multi_key_disabled_reason?.[String(index)] ?? '',
    disabled_time: info.multi_key_disabled_time?.[String(index)] ?? 0,
    key_preview: preview(key),
  }));
  const count = (status: number) => views.filter((view) => view.status === status).length;
  return {
    keys: views,
    total: views.length,
    enabled_count: count(KeyStatus.Enabled),
    manual_disabled_count: count(KeyStatus.ManuallyDisabled),
    auto_disabled_count: count(KeyStatus.AutoDisabled),
    multi_key_mode: info.multi_key_mode,
  };
}

/**
 * The console's per-key management of a multi-key channel (new-api POST /api/channel/multi_key/manage):
 * list the keys' status, enable or disable one key or all, delete a key or every disabled key. The
 * channel follows its keys: with no enabled key it is disabled, and enabling a key of a channel that was
 * auto-disabled brings it back.
 */
@Injectable()
export class ChannelMultiKeyService {
  constructor(
    private readonly channels: ChannelRepository,
    private readonly router: ChannelRouter,
  ) {}

  async manage(request: MultiKeyManageRequest): Promise<KeyStatusList> {
    const id = channelId(String(request.channel_id));
    const result = await this.channels.transaction(async (manager) => {
      const row = await this.channels.findById(id, manager);
      if (!row) throw new NotFoundError('channel not found');
      const info = parseChannelInfo(row.channelInfo);
      if (!info.is_multi_key) throw new BusinessError('this channel is not a multi-key channel');
      let keys = splitKeys(row.key);
      if (request.action === 'get_key_status') return { keys, info, changed: false, status: row.status };
      const index = () => {
        const value = parseInteger(request.key_index, 'key_index is out of range', 0, keys.length - 1);
        if (value === undefined) throw new BusinessError('key_index is required');
        return value;
      };
      let next = info;
      const now = nowSeconds();
      switch (request.action) {
        case 'enable_key':
          next = withKeyStatus(info, index(), KeyStatus.Enabled, '', now);
          break;
        case 'disable_key':
          next = withKeyStatus(info, index(), KeyStatus.ManuallyDisabled, 'disabled by an administrator', now);
          break;
        case 'enable_all_keys':
          next = { ...info, multi_key_status_list: {}, multi_key_disabled_reason: {}, multi_key_disabled_time: {} };
          break;
        case 'disable_all_keys':
          for (let i = 0; i < keys.length; i++)
            next = withKeyStatus(next, i, KeyStatus.ManuallyDisabled, 'disabled by an administrator', now);
          break;
        case 'delete_key': {
          const at = index();
          if (keys.length === 1) throw new BusinessError('a multi-key channel keeps at least one key');
          next = withoutKey(info, at, keys.length);
          keys = keys.filter((_, i) => i !== at);
          break;
        }
        case 'delete_disabled_keys': {
          for (let i = keys.length - 1; i >= 0; i--) {
            if (keyStatus(next, i) === KeyStatus.Enabled || keys.length === 1) continue;
            next = withoutKey(next, i, keys.length);
            keys = keys.filter((_, k) => k !== i);
          }
          break;
        }
      }
      const anyEnabled = enabledKeyIndexes(next, keys).length > 0;
      // The channel follows its keys: none left → disabled; a key back on an auto-disabled channel → enabled.
      let status = row.status;
      if (!anyEnabled && status === ChannelStatus.Enabled) status = ChannelStatus.AutoDisabled;
      else if (anyEnabled && status === ChannelStatus.AutoDisabled) status = ChannelStatus.Enabled;
      const saved = { ...row, key: keys.join('\n'), channelInfo: JSON.stringify({ ...next, multi_key_size: keys.length }), status };
      await this.channels.update(id, { key: saved.key, channelInfo: saved.channelInfo, status }, manager);
      if (status !== row.status) await this.channels.syncAbilities([saved], manager);
      return { keys, info: next, changed: true, status };
    });
    if (result.changed) await this.router.changed();
    return statusList(result.keys, result.info);
  }
}
