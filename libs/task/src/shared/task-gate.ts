import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import { ChannelRouter, ChannelStatus, type RelayChannel } from '@gw/channel';
import { OptionService } from '@gw/option';
import { PricingService } from '@gw/relay';
import { RelayAuthError, TokenAuthService } from '@gw/token';
import { AUTO_GROUP, autoGroupsOf } from '@gw/user';
import { TaskRelayError } from './task-error.js';

/** Who submits a task: the token's user, billed under the token's group (or the user's). */
export interface TaskCaller {
  userId: number;
  username: string;
  tokenId: number;
  tokenName: string;
  userGroup: string;
  group: string;
  recordIp: boolean;
  acceptUnsetModelRatioModel: boolean;
  pinnedChannelId?: number;
  modelLimits?: ReadonlySet<string> | readonly string[];
}

/** What one call costs: new-api's per-call pricing (ModelPriceHelperPerCall). */
export interface TaskPrice {
  quota: number;
  modelPrice: number;
  groupRatio: number;
  /** True when priced by the model ratio (no fixed price set). */
  byRatio: boolean;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The front half every task family shares: token authentication (Midjourney clients may send
 * `mj-api-secret`), the using group, the channel for the task's model and its per-call price. Reads only
 * memory (token index, routing table, options), as the relay does.
 */
@Injectable()
export class TaskGate {
  constructor(
    private readonly tokens: TokenAuthService,
    private readonly router: ChannelRouter,
    private readonly pricing: PricingService,
    private readonly options: OptionService,
  ) {}

  async authenticate(headers: IncomingHttpHeaders, ip: string): Promise<TaskCaller> {
    let authorization = header(headers, 'authorization');
    const secret = header(headers, 'mj-api-secret');
    // Midjourney clients: the key in mj-api-secret when Authorization is empty or the placeholder.
    if (secret && (!authorization || authorization.trim() === '' || authorization.trim() === 'midjourney-proxy'))
      authorization = `Bearer ${secret.trim()}`;
    try {
      const { token, user, pinnedChannelId } = await this.tokens.authenticate({ authorization }, ip);
      const caller: TaskCaller = {
        userId: user.id,
        username: user.username,
        tokenId: token.id,
        tokenName: token.name,
        userGroup: user.group || 'default',
        group: token.group || user.group || 'default',
        recordIp: user.setting.recordIpLog,
        acceptUnsetModelRatioModel: user.setting.acceptUnsetModelRatioModel,
      };
      if (token.modelLimitsEnabled) caller.modelLimits = token.modelLimits;
      if (pinnedChannelId !== undefined) caller.pinnedChannelId = pinnedChannelId;
      return caller;
    } catch (error) {
      if (error instanceof RelayAuthError) throw new TaskRelayError(error.message, error.relayStatus, error.code, true);
      throw error;
    }
  }

  /** The channel serving `model` for this caller (the pinned one for admins' sk-KEY-ID). */
  channelFor(caller: TaskCaller, model: string, types?: readonly number[]): RelayChannel {
    const limits = caller.modelLimits;
    if (limits && !(Array.isArray(limits) ? (limits as readonly string[]).includes(model) : (limits as ReadonlySet<string>).has(model))) {
      throw new TaskRelayError(`this token has no access to model ${model}`, 403, 'model_not_allowed', true);
    }
    this.settleAutoGroup(caller, model);
    const channel = caller.pinnedChannelId !== undefined ? this.router.get(caller.pinnedChannelId) : this.router.pick(caller.group, model);
    if (!channel)
      throw new TaskRelayError(`no available channel for model ${model} under group ${caller.group}`, 503, 'model_not_found', true);
    if (channel.status !== ChannelStatus.Enabled)
      throw new TaskRelayError(`channel #${channel.id} is disabled`, 403, 'channel_disabled', true);
    if (types && !types.includes(channel.type))
      throw new TaskRelayError(`channel #${channel.id} does not serve this kind of task`, 400, 'channel_type_mismatch', true);
    return channel;
  }

  /** An `auto` caller takes the first of the user's auto groups with a channel for the model (routed and billed there). */
  private settleAutoGroup(caller: TaskCaller, model: string): void {
    if (caller.group !== AUTO_GROUP || caller.pinnedChannelId !== undefined) return;
    const served = autoGroupsOf(this.options, caller.userGroup).find((group) => this.router.pick(group, model));
    if (served) caller.group = served;
  }

  /** A task's own channel (follow-up actions and fetches go where the task was submitted). */
  channelById(id: number): RelayChannel | undefined {
    return this.router.get(id);
  }

  /**
   * Per-call price: fixed price × QuotaPerUnit × group ratio; with only a model ratio, half of it ×
   * QuotaPerUnit × group ratio (new-api); neither: refused unless self-use mode or the user accepts
   * unpriced models (then the default per-call price of 0.1).
   */
  price(caller: TaskCaller, model: string, priceKey = model): TaskPrice {
    this.settleAutoGroup(caller, model);
    const info =
      this.pricing.resolve(priceKey, caller.group, caller.userGroup) ??
      (priceKey === model ? undefined : this.pricing.resolve(model, caller.group, caller.userGroup));
    const perUnit = this.options.get('QuotaPerUnit');
    const groupRatio = this.pricing.groupRatio(caller.group, caller.userGroup);
    if (info?.usePrice)
      return {
        quota: Math.max(0, Math.trunc(info.modelPrice * perUnit * groupRatio)),
        modelPrice: info.modelPrice,
        groupRatio,
        byRatio: false,
      };
    if (info)
      return {
        quota: Math.max(0, Math.trunc((info.modelRatio / 2) * perUnit * groupRatio)),
        modelPrice: info.modelRatio / 2,
        groupRatio,
        byRatio: true,
      };
    if (!this.options.get('SelfUseModeEnabled') && !caller.acceptUnsetModelRatioModel) {
      throw new TaskRelayError(`model ${model} has no price set; ask the administrator to configure it`, 400, 'model_price_error');
    }
    return { quota: Math.max(0, Math.trunc(0.1 * perUnit * groupRatio)), modelPrice: 0.1, groupRatio, byRatio: false };
  }
}
