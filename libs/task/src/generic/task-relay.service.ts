import type { IncomingHttpHeaders } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ChannelHealthService, type RelayChannel } from '@gw/channel';
import { nowSeconds } from '@gw/database';
import { type ChannelRoute, expressionRequest } from '@gw/relay';
import { randomAlnum } from '@gw/user';
import { TaskBilling, type TaskCharge } from '../shared/task-billing.service.js';
import { TaskRelayError } from '../shared/task-error.js';
import type { TaskExprCharge, TaskExprSnapshot } from '../shared/task-expression.js';
import { TaskGate, type TaskCaller, type TaskPrice } from '../shared/task-gate.js';
import { retriesTaskFailure } from '../shared/task-retry.js';
import { TASK_PROVIDERS, type PlannedSubmit, type SubmitContext, type SubmitOutcome, type TaskProvider } from './task-provider.js';
import { TaskStatus, type TaskEntity } from './task.entity.js';
import { TaskRepository } from './task.repository.js';
import { submitQuota } from './task-settlement.js';
import { toTaskDto } from './task-view.js';

export interface TaskCall {
  headers: IncomingHttpHeaders;
  ip: string;
  body: unknown;
  path: string;
}

export interface TaskAnswer {
  status: number;
  body: unknown;
}

/** new-api's TaskError body. */
export function taskError(message: string, code: string, status = 400): TaskAnswer {
  return { status, body: { code, message, data: null } };
}

/** A refusal of the gateway's own (a bad request, the price, the quota) as its TaskError answer. */
function refusal(error: unknown): TaskAnswer {
  if (error instanceof TaskRelayError) return taskError(error.message, error.code, error.httpStatus);
  throw error;
}

/** Where a submit's attempts go: the relay's route, or a derived task's origin channel alone. */
type SubmitRoute = Pick<ChannelRoute, 'channel' | 'group' | 'next'>;

/** One attempt: its channel, the group it is priced and billed in, the provider serving it and its price. */
interface Attempt {
  provider: TaskProvider;
  channel: RelayChannel;
  group: string;
  planned: PlannedSubmit;
  price: TaskPrice;
  quota: number;
}

/**
 * The submit half of the `tasks` families: authenticate, plan (provider), route and price, reserve,
 * submit (provider) with new-api's retries, store the row, then keep the charge or give it back. Reads
 * come from the table.
 */
@Injectable()
export class TaskRelayService {
  private readonly logger = new Logger('TaskRelay');
  private readonly providers: Map<string, TaskProvider>;

  constructor(
    private readonly gate: TaskGate,
    private readonly billing: TaskBilling,
    private readonly rows: TaskRepository,
    private readonly health: ChannelHealthService,
    @Inject(TASK_PROVIDERS) providers: TaskProvider[],
  ) {
    this.providers = new Map(providers.map((provider) => [provider.platform, provider]));
  }

  provider(platform: string): TaskProvider {
    const provider = this.providers.get(platform);
    if (!provider) throw new Error(`no task provider ${platform}`);
    return provider;
  }

  /**
   * `/v1/video/generations`: each attempt's provider is the one serving its channel's type (Kling, an
   * OpenAI-compatible video API …), as new-api dispatches by channel type.
   */
  async submitByModel(action: string, call: TaskCall): Promise<TaskAnswer> {
    const caller = await this.gate.authenticate(call.headers, call.ip);
    const model = (call.body as { model?: unknown } | undefined)?.model;
    if (typeof model !== 'string' || !model.trim()) return taskError('field model is required', 'invalid_request');
    return this.submitRouted(undefined, action, call, caller, model.trim());
  }

  /** The caller behind the call's key; throws the relay's 401 when there is none. */
  authenticate(call: TaskCall): Promise<TaskCaller> {
    return this.gate.authenticate(call.headers, call.ip);
  }

  async submit(platform: string, action: string, call: TaskCall): Promise<TaskAnswer> {
    return this.submitRouted(this.provider(platform), action, call, await this.gate.authenticate(call.headers, call.ip));
  }

  /**
   * One submit (new-api's RelayTask): each attempt is planned by the provider serving its channel and priced
   * in the route's current group; a failure the retry rules allow moves on to the route's next channel (the
   * next priority in the group, or with cross_group_retry the next auto group), up to RetryTimes. The charge
   * is reserved once, before the first attempt that costs something, and settled at the price of the
   * attempt the provider accepted (its group's ratio), or released when none did.
   */
  private async submitRouted(
    fixed: TaskProvider | undefined,
    action: string,
    call: TaskCall,
    caller: TaskCaller,
    model?: string,
  ): Promise<TaskAnswer> {
    const plans = new Map<TaskProvider, PlannedSubmit>();
    let origin: TaskEntity | undefined;
    if (fixed) {
      try {
        const planned = fixed.plan(action, call.body);
        plans.set(fixed, planned);
        if (planned.originTaskId) {
          origin = (await this.rows.findOwn(caller.userId, planned.originTaskId)) ?? undefined;
          if (!origin) return taskError('task_not_exist', 'task_not_exist', 400);
          // A derived task costs what its origin cost per call, times the origin's own ratios.
          planned.ratios = { ...(origin.privateData?.billing_context?.other_ratios ?? {}), ...(planned.ratios ?? {}) };
          planned.usage = { ...(origin.privateData?.billing_context?.billing_expr?.usage ?? {}), ...(planned.usage ?? {}) };
        }
      } catch (error) {
        return refusal(error);
      }
    }
    const routed = fixed ? plans.get(fixed)!.model : model!;
    // A derived task runs on its origin's channel alone, billed where the caller's group is served.
    const route: SubmitRoute = origin
      ? { channel: this.originChannel(origin), group: this.gate.servingGroup(caller, routed), next: () => undefined }
      : this.gate.route(caller, routed, fixed?.channelTypes);
    const submit: SubmitContext = { publicId: `task_${randomAlnum(32)}`, origin };
    const tried = new Set<number>();
    const used: number[] = [];
    let charge: TaskCharge | undefined;
    let failed: TaskAnswer | undefined;
    try {
      for (let channel: RelayChannel | undefined = route.channel; channel; channel = route.next(tried)) {
        tried.add(channel.id);
        const provider = this.providerFor(fixed, channel, used.length === 0);
        if (!provider) {
          if (used.length === 0) return taskError(`channel type ${channel.type} does not generate videos`, 'invalid_request');
          continue; // a retry's channel this submit cannot use is passed over, as a failed attempt would be
        }
        used.push(channel.id);
        let attempt: Attempt;
        try {
          const planned = plans.get(provider) ?? provider.plan(action, call.body);
          plans.set(provider, planned);
          const facts = { usage: planned.usage ?? {}, request: expressionRequest(call.body, call.headers) };
          const price = this.gate.price(caller, route.group, planned.model, planned.model, facts);
          attempt = { provider, channel, group: route.group, planned, price, quota: submitQuota(price, planned.ratios) };
          charge = await this.chargeFor(caller, charge, attempt.quota);
        } catch (error) {
          return refusal(error);
        }
        const outcome = await this.attempt(attempt, submit);
        if (outcome.ok) {
          this.health.reportRelaySuccess(channel.id);
          await this.record(attempt, outcome, { caller, call, charge, used, publicId: submit.publicId });
          return { status: outcome.status, body: outcome.body };
        }
        failed = taskError(outcome.message, outcome.code, outcome.status);
        // new-api fails a submit the provider did not answer with a 200 with that status, and retries by it.
        const status = outcome.upstreamStatus !== undefined && outcome.upstreamStatus !== 200 ? outcome.upstreamStatus : outcome.status;
        this.health.reportRelayFailure(channel.id, { status, message: outcome.message });
        if (!retriesTaskFailure(status)) break;
      }
      return failed!;
    } finally {
      // Nothing after a commit; otherwise every attempt failed or was refused, and the reservation goes back.
      await charge?.release();
    }
  }

  /** The submit's charge: reserved once, at the first attempt that costs something (new-api pre-consumes once). */
  private async chargeFor(caller: TaskCaller, charge: TaskCharge | undefined, quota: number): Promise<TaskCharge> {
    if (charge && (charge.quota > 0 || quota === 0)) return charge;
    await charge?.release();
    return this.billing.reserve(caller, quota);
  }

  /** The provider of an attempt on `channel`: the route's own (any channel it was given first), else by channel type. */
  private providerFor(fixed: TaskProvider | undefined, channel: RelayChannel, first: boolean): TaskProvider | undefined {
    if (fixed) return first || fixed.channelTypes.includes(channel.type) ? fixed : undefined;
    return [...this.providers.values()].find((provider) => provider.channelTypes.includes(channel.type));
  }

  /** One submit to the provider; a provider that cannot be reached fails as new-api's do_request_failed. */
  private async attempt(attempt: Attempt, context: SubmitContext): Promise<SubmitOutcome> {
    try {
      return await attempt.provider.submit(attempt.channel, attempt.planned, context);
    } catch (error) {
      const message = (error as Error).message;
      this.logger.warn(`${attempt.provider.platform} channel #${attempt.channel.id}: ${message}`);
      return { ok: false, status: 502, code: 'do_request_failed', message: 'the task provider could not be reached' };
    }
  }

  /** The accepted attempt: its row and its charge (at the attempt's price, in its group) commit together. */
  private async record(
    attempt: Attempt,
    outcome: Extract<SubmitOutcome, { ok: true }>,
    submit: { caller: TaskCaller; call: TaskCall; charge: TaskCharge; used: number[]; publicId: string },
  ): Promise<void> {
    const { provider, channel, group, planned, price, quota } = attempt;
    const { caller, call } = submit;
    const now = nowSeconds();
    const taskId = provider.publicIds ? submit.publicId : outcome.upstreamId;
    const row: Partial<TaskEntity> = {
      createdAt: now,
      updatedAt: now,
      taskId,
      platform: provider.platformOf(channel),
      userId: caller.userId,
      group,
      channelId: channel.id,
      quota,
      action: planned.action,
      status: TaskStatus.Submitted,
      failReason: '',
      submitTime: now,
      startTime: 0,
      finishTime: 0,
      progress: '0%',
      properties: {
        input: typeof planned.body.prompt === 'string' ? planned.body.prompt : '',
        origin_model_name: planned.model,
        upstream_model_name: planned.model,
      },
      privateData: {
        upstream_task_id: outcome.upstreamId,
        billing_source: 'wallet',
        token_id: caller.tokenId,
        billing_context: {
          model_price: price.modelPrice,
          group_ratio: price.groupRatio,
          // A model priced by ratio is re-priced from the tokens the provider reports at the end (new-api).
          ...(price.byRatio ? { model_ratio: price.modelPrice * 2 } : {}),
          origin_model_name: planned.model,
          per_call_billing: !price.byRatio,
          per_call_quota: price.quota,
          other_ratios: planned.ratios,
          ...(price.minimumCharge ? { minimum_charge: true } : {}),
          ...(price.expr ? { billing_expr: exprSnapshot(price.expr) } : {}),
        },
      },
      data: null,
    };
    // The row and the charge commit together (when they cannot, the reservation goes back).
    await submit.charge.commit(
      {
        channelId: channel.id,
        channelName: channel.name,
        modelName: planned.model,
        group,
        ip: caller.recordIp ? call.ip : '',
        content: `${price.expr ? `billing expression, tier ${price.expr.tier || '-'}` : `fixed price ${price.modelPrice.toFixed(2)}`}, group ratio ${price.groupRatio.toFixed(2)}, action ${planned.action}, task ${taskId}`,
        other: {
          model_price: price.modelPrice,
          group_ratio: price.groupRatio,
          task_id: taskId,
          request_path: call.path,
          ...(planned.ratios && !price.expr ? { other_ratios: planned.ratios } : {}),
          ...(price.expr ? exprLog(price.expr) : {}),
          admin_info: { use_channel: submit.used.map(String) },
        },
      },
      (manager) => this.rows.insert(row, manager),
      quota,
    );
  }

  private originChannel(origin: TaskEntity) {
    const channel = this.gate.channelById(origin.channelId);
    if (!channel) throw new TaskRelayError('the channel of this task no longer exists', 400, 'channel_not_found');
    if (channel.status !== 1) throw new TaskRelayError('the channel of this task is disabled', 403, 'channel_disabled');
    return channel;
  }

  /** The caller's own task, for the provider-specific reads (video content), with its channel and provider. */
  async ownTask(
    taskId: string,
    call: TaskCall,
  ): Promise<{ row: TaskEntity; channel: RelayChannel | undefined; provider: TaskProvider | undefined } | undefined> {
    const caller = await this.gate.authenticate(call.headers, call.ip);
    const row = await this.rows.findOwn(caller.userId, taskId);
    if (!row) return undefined;
    const provider = [...this.providers.values()].find((candidate) => candidate.polls.includes(row.platform ?? ''));
    return { row, channel: this.gate.channelById(row.channelId), provider };
  }

  async fetchOne(platform: string, taskId: string, call: TaskCall): Promise<TaskAnswer> {
    const caller = await this.gate.authenticate(call.headers, call.ip);
    const row = await this.rows.findOwn(caller.userId, taskId, platform);
    if (!row) return taskError('task_not_exist', 'task_not_exist', 400);
    return { status: 200, body: { code: 'success', message: '', data: toTaskDto(row, { withChannel: false }) } };
  }

  async fetchMany(platform: string, call: TaskCall): Promise<TaskAnswer> {
    const caller = await this.gate.authenticate(call.headers, call.ip);
    const ids = (call.body as { ids?: unknown } | undefined)?.ids;
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))
      return taskError('ids must be a list of task ids', 'invalid_request');
    const rows = (await this.rows.findOwnMany(caller.userId, (ids as string[]).slice(0, 1000))).filter((row) => row.platform === platform);
    return { status: 200, body: { code: 'success', message: '', data: rows.map((row) => toTaskDto(row, { withChannel: false })) } };
  }
}

/** The part of an expression price a task keeps for its settlement. */
function exprSnapshot({ source, usage, request, quotaPerUsd, minimumCharge }: TaskExprSnapshot): TaskExprSnapshot {
  return { source, usage, request, quotaPerUsd, minimumCharge };
}

/** The consume row's fields of a task priced by its expression (new-api's tiered_expr fields, and the facts). */
function exprLog(expr: TaskExprSnapshot & TaskExprCharge): Record<string, unknown> {
  return {
    billing_mode: 'tiered_expr',
    matched_tier: expr.tier,
    task_usage: expr.usage,
    ...(expr.rules ? { request_rules: expr.rules } : {}),
  };
}
