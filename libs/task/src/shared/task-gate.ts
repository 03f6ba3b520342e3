import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import { ChannelRouter, type RelayChannel } from '@gw/channel';
import { BillingExprError, type BillingProgram, type ExprRequest, type TaskUsage } from '@gw/contracts';
import { AppError } from '@gw/core';
import { OptionService } from '@gw/option';
import { type ChannelRoute, ChannelSelection, PricingService } from '@gw/relay';
import { RelayAuthError, TokenAuthService } from '@gw/token';
import { TaskRelayError } from './task-error.js';
import { freezeRequest, type TaskExprCharge, taskExpressionCharge, type TaskExprSnapshot } from './task-expression.js';

/** Who submits a task: the token's user, billed under the token's group (or the user's). */
export interface TaskCaller {
  userId: number;
  username: string;
  tokenId: number;
  tokenName: string;
  userGroup: string;
  /** The token's group, else the user's; `auto` stays `auto` here: the route says which auto group served. */
  group: string;
  /** The token's cross_group_retry: an `auto` submit moves to the next auto group once a group's retries are spent. */
  crossGroupRetry: boolean;
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
  /** billing_setting.minimum_charge of the model. */
  minimumCharge: boolean;
  /** Priced by the model's billing expression: the whole task's quota, and what settlement re-runs. */
  expr?: TaskExprSnapshot & TaskExprCharge;
}

/** What a task expression reads of one submit: its facts (u()) and the client's request (param(), header()). */
export interface TaskFacts {
  usage: TaskUsage;
  request: ExprRequest;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The front half every task family shares: token authentication (Midjourney clients may send
 * `mj-api-secret`), the route of the task's model (the relay's own ChannelSelection: the auto group walk,
 * RetryTimes and cross_group_retry) and its per-call price in the group that serves it. Reads only memory
 * (token index, routing table, options), as the relay does.
 */
@Injectable()
export class TaskGate {
  constructor(
    private readonly tokens: TokenAuthService,
    private readonly router: ChannelRouter,
    private readonly selection: ChannelSelection,
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
        crossGroupRetry: token.crossGroupRetry,
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

  /**
   * Where a submit of `model` goes: the pinned channel alone (admins' sk-KEY-ID), else the routing table's
   * pick in the caller's group, or for `auto` in the first of the user's auto groups with a channel; the
   * route's `next` gives the retries (new-api routes task submits as it routes chat requests). The first
   * channel must be of one of `types` when given.
   */
  route(caller: TaskCaller, model: string, types?: readonly number[]): ChannelRoute {
    const limits = caller.modelLimits;
    if (limits && !(Array.isArray(limits) ? (limits as readonly string[]).includes(model) : (limits as ReadonlySet<string>).has(model))) {
      throw new TaskRelayError(`this token has no access to model ${model}`, 403, 'model_not_allowed', true);
    }
    let route: ChannelRoute;
    try {
      route = this.selection.route(caller, caller.group, model);
    } catch (error) {
      // The relay's routing refusals (no channel, a missing or disabled pinned channel), in the task routes' shape.
      if (error instanceof AppError) throw new TaskRelayError(error.message, error.relayStatus, error.code, true);
      throw error;
    }
    if (types && !types.includes(route.channel.type))
      throw new TaskRelayError(`channel #${route.channel.id} does not serve this kind of task`, 400, 'channel_type_mismatch', true);
    return route;
  }

  /** The group a submit whose channel is fixed (a follow-up on its task's channel) is priced and billed in. */
  servingGroup(caller: TaskCaller, model: string): string {
    return this.selection.servingGroup(caller, caller.group, model);
  }

  /** A task's own channel (follow-up actions and fetches go where the task was submitted). */
  channelById(id: number): RelayChannel | undefined {
    return this.router.get(id);
  }

  /**
   * Per-call price in `group` (the group serving the submit): fixed price × QuotaPerUnit × group ratio; with only a model ratio, half of it ×
   * QuotaPerUnit × group ratio (new-api); neither: refused unless self-use mode or the user accepts
   * unpriced models (then the default per-call price of 0.1). With `facts`, a model billed by its expression
   * (billing_setting) is priced by it instead, for the whole task.
   */
  price(caller: TaskCaller, group: string, model: string, priceKey = model, facts?: TaskFacts): TaskPrice {
    const minimumCharge = this.pricing.minimumCharge(priceKey);
    const program = facts && (this.pricing.billingExpr(priceKey) ?? (priceKey === model ? undefined : this.pricing.billingExpr(model)));
    if (program && facts) return this.expressionPrice(caller, group, program, facts, minimumCharge);
    const info =
      this.pricing.resolve(priceKey, group, caller.userGroup) ??
      (priceKey === model ? undefined : this.pricing.resolve(model, group, caller.userGroup));
    const perUnit = this.options.get('QuotaPerUnit');
    const groupRatio = this.pricing.groupRatio(group, caller.userGroup);
    if (info?.usePrice)
      return {
        quota: Math.max(0, Math.trunc(info.modelPrice * perUnit * groupRatio)),
        modelPrice: info.modelPrice,
        groupRatio,
        byRatio: false,
        minimumCharge,
      };
    if (info)
      return {
        quota: Math.max(0, Math.trunc((info.modelRatio / 2) * perUnit * groupRatio)),
        modelPrice: info.modelRatio / 2,
        groupRatio,
        byRatio: true,
        minimumCharge,
      };
    if (!this.options.get('SelfUseModeEnabled') && !caller.acceptUnsetModelRatioModel) {
      throw new TaskRelayError(`model ${model} has no price set; ask the administrator to configure it`, 400, 'model_price_error');
    }
    return { quota: Math.max(0, Math.trunc(0.1 * perUnit * groupRatio)), modelPrice: 0.1, groupRatio, byRatio: false, minimumCharge };
  }

  /** A task priced by its model's expression: US$ × QuotaPerUnit × group ratio; 400 model_price_error when it cannot. */
  private expressionPrice(caller: TaskCaller, group: string, program: BillingProgram, facts: TaskFacts, minimumCharge: boolean): TaskPrice {
    const groupRatio = this.pricing.groupRatio(group, caller.userGroup);
    const snapshot: TaskExprSnapshot = {
      source: program.source,
      usage: facts.usage,
      request: freezeRequest(program, facts.request),
      quotaPerUsd: this.options.get('QuotaPerUnit') * groupRatio,
      minimumCharge,
    };
    try {
      const charge = taskExpressionCharge(snapshot);
      return { quota: charge.quota, modelPrice: 0, groupRatio, byRatio: false, minimumCharge, expr: { ...snapshot, ...charge } };
    } catch (error) {
      if (!(error instanceof BillingExprError)) throw error;
      throw new TaskRelayError(`the billing expression of this model cannot price the task: ${error.message}`, 400, 'model_price_error');
    }
  }
}
