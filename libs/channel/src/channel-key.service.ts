import { Injectable, Logger } from '@nestjs/common';
import type { UpstreamTarget } from '@gw/upstream';
import { nowSeconds } from '@gw/database';
import { ChannelRepository } from './channel.repository.js';
import { ChannelRouter } from './channel-router.js';
import { ChannelStatusService } from './channel-status.service.js';
import { chooseKeyIndex, enabledKeyIndexes, KeyStatus, keyStatus, parseChannelInfo, splitKeys, withKeyStatus } from './multi-key.js';
import { redactKey } from './redact.js';
import type { RelayChannel } from './relay-channel.js';

export interface KeyChoice {
  upstream: UpstreamTarget;
  /** The key's position in the channel's key list (0 for a single-key channel). */
  keyIndex: number;
}

/**
 * Picks the key of a multi-key channel for each upstream call (random, or polling in turn over the
 * enabled keys), and disables one key when it keeps failing while the channel's other keys go on; the
 * channel itself is auto-disabled only when its last enabled key goes. The polling cursor lives in memory
 * per instance (persisting it on every request would put a write on the hot path).
 */
@Injectable()
export class ChannelKeyService {
  private readonly logger = new Logger('ChannelKeys');
  private readonly cursors = new Map<number, number>();

  constructor(
    private readonly channels: ChannelRepository,
    private readonly router: ChannelRouter,
    private readonly status: ChannelStatusService,
  ) {}

  /** The target to call with; undefined when a multi-key channel has no enabled key left. */
  choose(channel: RelayChannel): KeyChoice | undefined {
    if (!channel.info.is_multi_key) return { upstream: channel.upstream, keyIndex: 0 };
    const enabled = enabledKeyIndexes(channel.info, channel.keys);
    const cursor = this.cursors.get(channel.id) ?? channel.info.multi_key_polling_index;
    const index = chooseKeyIndex(channel.info.multi_key_mode, enabled, channel.keys.length, cursor);
    if (index === undefined) return undefined;
    if (channel.info.multi_key_mode === 'polling') this.cursors.set(channel.id, (index + 1) % channel.keys.length);
    return { upstream: { ...channel.upstream, key: channel.keys[index]! }, keyIndex: index };
  }

  /**
   * Marks one key of a multi-key channel auto-disabled (status 3, with reason and time, as new-api does).
   * When no enabled key remains, the channel is auto-disabled too. False when nothing changed.
   */
  async disableKey(channelId: number, keyIndex: number, reason: string): Promise<boolean> {
    let lastKeyGone = false;
    let redacted = reason;
    const changed = await this.channels.transaction(async (manager) => {
      const row = await this.channels.findById(channelId, manager);
      if (!row) return false;
      const info = parseChannelInfo(row.channelInfo);
      const keys = splitKeys(row.key);
      if (!info.is_multi_key || keyIndex >= keys.length || keyStatus(info, keyIndex) !== KeyStatus.Enabled) return false;
      redacted = redactKey(reason, row.key);
      const next = withKeyStatus(info, keyIndex, KeyStatus.AutoDisabled, redacted, nowSeconds());
      await this.channels.update(channelId, { channelInfo: JSON.stringify(next) }, manager);
      lastKeyGone = enabledKeyIndexes(next, keys).length === 0;
      return true;
    });
    if (!changed) return false;
    this.logger.warn(`channel #${channelId}: key #${keyIndex} auto-disabled: ${redacted}`);
    if (lastKeyGone) await this.status.autoDisable(channelId, `all keys are disabled; last: ${redacted}`);
    else await this.router.changed();
    return true;
  }
}
