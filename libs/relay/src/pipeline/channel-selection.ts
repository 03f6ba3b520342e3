import { Injectable } from '@nestjs/common';
import { ChannelRouter, ChannelStatus, type RelayChannel } from '@gw/channel';
import { OptionService } from '@gw/option';
import { AUTO_GROUP, autoGroupsOf } from '@gw/user';
import { RelayError } from './relay-error.js';
import { RelayPricing, type RelayCaller } from './ports.js';

/** How one request picks its channels: the routing table's pick, by group, model, tier and what was tried. */
type ChannelPick = (group: string, model: string, exclude: ReadonlySet<number>, tier: number) => RelayChannel | undefined;

/** What routing reads of a caller (the chat relay's RelayCaller; the task relay's caller has the same fields). */
export type RouteCaller = Pick<RelayCaller, 'userGroup' | 'pinnedChannelId' | 'crossGroupRetry'>;

/**
 * Where one request is served: the group it is routed and billed in (for `auto`, the auto group that had
 * a channel) and how a retry moves on. Within a group each retry takes the next priority tier, never a
 * channel already tried, up to RetryTimes; an `auto` request with the token's cross_group_retry then moves
 * to the next auto group with a channel, starting again at its top tier with RetryTimes retries of its own
 * (new-api's cross-group retry: a group is left only once its retries are spent, and only when RetryTimes > 0).
 */
export class ChannelRoute {
  /** The group of the current channel. */
  group: string;
  channel: RelayChannel;
  /** Retries spent in the current group. */
  private retry = 0;

  constructor(
    private readonly pick: ChannelPick,
    private readonly model: string,
    /** The groups the request may walk, in order (one for a plain group), and the current one's index. */
    private readonly groups: readonly string[],
    private index: number,
    channel: RelayChannel,
    private readonly maxRetries: number,
    private readonly crossGroupRetry: boolean,
  ) {
    this.group = groups[index]!;
    this.channel = channel;
  }

  /** The channel of the next attempt, or undefined when the request has no retry left. */
  next(tried: ReadonlySet<number>): RelayChannel | undefined {
    if (this.retry < this.maxRetries) {
      const next = this.pick(this.group, this.model, tried, this.retry + 1);
      if (next) {
        this.retry++;
        this.channel = next;
        return next;
      }
    }
    if (!this.crossGroupRetry || this.maxRetries <= 0) return undefined;
    for (let i = this.index + 1; i < this.groups.length; i++) {
      const next = this.pick(this.groups[i]!, this.model, tried, 0);
      if (!next) continue;
      this.index = i;
      this.group = this.groups[i]!;
      this.retry = 0;
      this.channel = next;
      return next;
    }
    return undefined;
  }
}

/**
 * Which group a request bills and routes under, and which channel serves each attempt. Reads only the
 * in-memory routing table and options.
 */
@Injectable()
export class ChannelSelection {
  private readonly pick: ChannelPick;

  constructor(
    private readonly router: ChannelRouter,
    private readonly pricing: RelayPricing,
    private readonly options: OptionService,
  ) {
    this.pick = (group, model, exclude, tier) => this.router.pick(group, model, exclude, tier);
  }

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

  /**
   * The route of a request in `group`: the pinned channel alone (admins' sk-KEY-ID, no retry), else the
   * routing table's pick; for `auto`, in the first of the user's auto groups (AutoGroups kept to the usable
   * ones, in order) that has a channel for the model.
   */
  route(caller: RouteCaller, group: string, model: string): ChannelRoute {
    if (caller.pinnedChannelId !== undefined) {
      const pinned = this.router.get(caller.pinnedChannelId);
      if (!pinned)
        throw new RelayError(`channel #${caller.pinnedChannelId} does not exist`, 400, 'channel_not_found', 'invalid_request_error');
      if (pinned.status !== ChannelStatus.Enabled) throw new RelayError(`channel #${pinned.id} is disabled`, 403, 'channel_disabled');
      return new ChannelRoute(this.pick, model, [group], 0, pinned, 0, false);
    }
    const retries = this.options.get('RetryTimes');
    if (group !== AUTO_GROUP) {
      const channel = this.router.pick(group, model);
      if (!channel) throw noChannel(model, group);
      return new ChannelRoute(this.pick, model, [group], 0, channel, retries, false);
    }
    const groups = autoGroupsOf(this.options, caller.userGroup);
    if (groups.length === 0) throw new RelayError(`no auto group is available for model ${model}`, 503, 'model_not_found');
    const first = this.firstAutoPick(groups, model);
    if (!first) throw noChannel(model, group);
    return new ChannelRoute(this.pick, model, groups, first.index, first.channel, retries, caller.crossGroupRetry === true);
  }

  /**
   * The group a request in `group` is billed in when its channel is fixed elsewhere (a follow-up that must run
   * on its task's channel): for `auto`, the first of the user's auto groups with a channel for the model, as
   * new-api's distributor settles it before the channel is replaced; otherwise (or when none has one) `group`.
   */
  servingGroup(caller: RouteCaller, group: string, model: string): string {
    if (group !== AUTO_GROUP || caller.pinnedChannelId !== undefined) return group;
    const groups = autoGroupsOf(this.options, caller.userGroup);
    const first = this.firstAutoPick(groups, model);
    return first ? groups[first.index]! : group;
  }

  /**
   * The route of a request channel affinity sends to `channelId`, or undefined when that channel cannot serve it
   * (disabled, or not routed for the model in the group; for `auto`, in any of the user's auto groups, the first
   * that routes it being the one billed). With `noRetry` (the rule's skip_retry_on_failure) it is tried alone.
   */
  preferredRoute(caller: RouteCaller, group: string, model: string, channelId: number, noRetry: boolean): ChannelRoute | undefined {
    const channel = this.router.get(channelId);
    if (!channel || channel.status !== ChannelStatus.Enabled) return undefined;
    const groups = group === AUTO_GROUP ? autoGroupsOf(this.options, caller.userGroup) : [group];
    const index = groups.findIndex((g) => this.router.serves(g, model, channelId));
    if (index < 0) return undefined;
    const retries = noRetry ? 0 : this.options.get('RetryTimes');
    const crossGroup = !noRetry && group === AUTO_GROUP && caller.crossGroupRetry === true;
    return new ChannelRoute(this.pick, model, groups, index, channel, retries, crossGroup);
  }

  private firstAutoPick(groups: readonly string[], model: string): { index: number; channel: RelayChannel } | undefined {
    for (let index = 0; index < groups.length; index++) {
      const channel = this.router.pick(groups[index]!, model);
      if (channel) return { index, channel };
    }
    return undefined;
  }

  /** A route that stays in one group (callers without a ChannelRoute of their own). */
  fixedRoute(group: string, model: string, first: RelayChannel, maxRetries: number): ChannelRoute {
    return new ChannelRoute(this.pick, model, [group], 0, first, maxRetries, false);
  }
}

export function noChannel(model: string, group: string): RelayError {
  return new RelayError(`no available channel for model ${model} under group ${group}`, 503, 'model_not_found');
}
