import { Injectable } from '@nestjs/common';
import { ChannelRouter, ChannelStatus, type RelayChannel } from '@gw/channel';
import { RelayError } from './relay-error.js';
import { RelayPricing, type RelayCaller } from './ports.js';

/**
 * Which group a request bills and routes under, and which channel serves each attempt. Reads only the
 * in-memory routing table and options.
 */
@Injectable()
export class ChannelSelection {
  constructor(
    private readonly router: ChannelRouter,
    private readonly pricing: RelayPricing,
  ) {}

  /** Token model limits (403), then the using group (token's or playground's, else the user's), which must be usable (403). */
  usingGroup(caller: RelayCaller, model: string): string {
    const limits = caller.modelLimits;
    if (limits && !(Array.isArray(limits) ? (limits as readonly string[]).includes(model) : (limits as ReadonlySet<string>).has(model))) {
      throw new RelayError(`this token has no access to model ${model}`, 403, 'model_not_allowed');
    }
    const group = caller.requestedGroup || caller.userGroup;
    if (group !== caller.userGroup && !(group in this.pricing.usableGroups(caller.userGroup))) {
      throw new RelayError(`group ${group} is not available to this user`, 403, 'group_not_allowed');
    }
    return group;
  }

  /** The first channel: the pinned one as is (admins' sk-KEY-ID), else the routing table's pick. */
  first(caller: RelayCaller, group: string, model: string): RelayChannel {
    if (caller.pinnedChannelId !== undefined) {
      const pinned = this.router.get(caller.pinnedChannelId);
      if (!pinned)
        throw new RelayError(`channel #${caller.pinnedChannelId} does not exist`, 400, 'channel_not_found', 'invalid_request_error');
      if (pinned.status !== ChannelStatus.Enabled) throw new RelayError(`channel #${pinned.id} is disabled`, 403, 'channel_disabled');
      return pinned;
    }
    const channel = this.router.pick(group, model);
    if (!channel) throw noChannel(model, group);
    return channel;
  }

  /** A retry: the tier at the retry index, never a channel already tried in this request. */
  next(group: string, model: string, tried: ReadonlySet<number>, retry: number): RelayChannel | undefined {
    return this.router.pick(group, model, tried, retry);
  }
}

export function noChannel(model: string, group: string): RelayError {
  return new RelayError(`no available channel for model ${model} under group ${group}`, 503, 'model_not_found');
}
