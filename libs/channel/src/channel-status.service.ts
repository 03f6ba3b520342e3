import { Injectable } from '@nestjs/common';
import { nowSeconds } from '@gw/database';
import { ChannelStatus } from './channel.entity.js';
import { ChannelRepository } from './channel.repository.js';
import { ChannelRouter } from './channel-router.js';
import { ChannelNotifyService } from './channel-notify.service.js';

export interface OtherInfo {
  status_reason?: string;
  status_time?: number;
  [key: string]: unknown;
}

export function parseOtherInfo(text: string | null | undefined): OtherInfo {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as OtherInfo) : {};
  } catch {
    return {};
  }
}

/**
 * Automatic status changes (auto-disable on failures, auto-enable after a passing test): a conditional
 * UPDATE plus the abilities in one transaction, then the routing table, then a notice to root.
 */
@Injectable()
export class ChannelStatusService {
  constructor(
    private readonly channels: ChannelRepository,
    private readonly router: ChannelRouter,
    private readonly notices: ChannelNotifyService,
  ) {}

  /** Enabled → auto-disabled (3) with the reason in other_info. False when it was not enabled. */
  async autoDisable(channelId: number, reason: string): Promise<boolean> {
    const changed = await this.channels.transaction(async (manager) => {
      const row = await this.channels.findById(channelId, manager);
      if (!row || row.status !== ChannelStatus.Enabled) return undefined;
      const info = { ...parseOtherInfo(row.otherInfo), status_reason: reason.slice(0, 500), status_time: nowSeconds() };
      if (!(await this.channels.setStatusIf(channelId, [ChannelStatus.Enabled], ChannelStatus.AutoDisabled, JSON.stringify(info), manager)))
        return undefined;
      await this.channels.syncAbilities([{ ...row, status: ChannelStatus.AutoDisabled }], manager);
      return row;
    });
    if (!changed) return false;
    await this.router.changed();
    this.notices.notify({ channelId, channelName: changed.name, disabled: true, reason });
    return true;
  }

  /** Auto-disabled (3) → enabled, after a passing test. */
  async autoEnable(channelId: number): Promise<boolean> {
    const changed = await this.channels.transaction(async (manager) => {
      const row = await this.channels.findById(channelId, manager);
      if (!row || row.status !== ChannelStatus.AutoDisabled) return undefined;
      const info = { ...parseOtherInfo(row.otherInfo), status_reason: '', status_time: nowSeconds() };
      if (!(await this.channels.setStatusIf(channelId, [ChannelStatus.AutoDisabled], ChannelStatus.Enabled, JSON.stringify(info), manager)))
        return undefined;
      await this.channels.syncAbilities([{ ...row, status: ChannelStatus.Enabled }], manager);
      return row;
    });
    if (!changed) return false;
    await this.router.changed();
    this.notices.notify({ channelId, channelName: changed.name, disabled: false, reason: '' });
    return true;
  }
}
