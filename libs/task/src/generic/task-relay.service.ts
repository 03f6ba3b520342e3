import type { IncomingHttpHeaders } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { nowSeconds } from '@gw/database';
import { TaskBilling, type TaskCharge } from '../shared/task-billing.service.js';
import { TaskRelayError } from '../shared/task-error.js';
import { TaskGate, type TaskCaller, type TaskPrice } from '../shared/task-gate.js';
import type { RelayChannel } from '@gw/channel';
import { randomAlnum } from '@gw/user';
import { TASK_PROVIDERS, type PlannedSubmit, type SubmitOutcome, type TaskProvider } from './task-provider.js';
import { TaskStatus, type TaskEntity } from './task.entity.js';
import { TaskRepository } from './task.repository.js';
import { withRatios } from './task-settlement.js';
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

/**
 * The submit half of the `tasks` families: authenticate, plan (provider), route and price, reserve,
 * submit (provider), store the row, then keep the charge or give it back. Reads come from the table.
 */
@Injectable()
export class TaskRelayService {
  private readonly logger = new Logger('TaskRelay');
  private readonly providers: Map<string, TaskProvider>;

  constructor(
    private readonly gate: TaskGate,
    private readonly billing: TaskBilling,
    private readonly rows: TaskRepository,
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
   * `/v1/video/generations`: the provider is the one serving the channel picked for the body's model
   * (Kling, an OpenAI-compatible video API …), as new-api dispatches by channel type.
   */
  async submitByModel(action: string, call: TaskCall): Promise<TaskAnswer> {
    const caller = await this.gate.authenticate(call.headers, call.ip);
    const model = (call.body as { model?: unknown } | undefined)?.model;
    if (typeof model !== 'string' || !model.trim()) return taskError('field model is required', 'invalid_request');
    const channel = this.gate.channelFor(caller, model.trim());
    const provider = [...this.providers.values()].find((p) => p.channelTypes.includes(channel.type));
    if (!provider) return taskError(`channel type ${channel.type} does not generate videos`, 'invalid_request');
    return this.submitAs(provider, action, call, caller);
  }

  /** The caller behind the call's key; throws the relay's 401 when there is none. */
  authenticate(call: TaskCall): Promise<TaskCaller> {
    return this.gate.authenticate(call.headers, call.ip);
  }

  async submit(platform: string, action: string, call: TaskCall): Promise<TaskAnswer> {
    return this.submitAs(this.provider(platform), action, call, await this.gate.authenticate(call.headers, call.ip));
  }

  private async submitAs(provider: TaskProvider, action: string, call: TaskCall, caller: TaskCaller): Promise<TaskAnswer> {
    const platform = provider.platform;
    let planned: PlannedSubmit;
    let price: TaskPrice;
    let origin: TaskEntity | undefined;
    try {
      planned = provider.plan(action, call.body);
      if (planned.originTaskId) {
        origin = (await this.rows.findOwn(caller.userId, planned.originTaskId)) ?? undefined;
        if (!origin) return taskError('task_not_exist', 'task_not_exist', 400);
        // A derived task costs what its origin cost per call, times the origin's own ratios.
        planned.ratios = { ...(origin.privateData?.billing_context?.other_ratios ?? {}), ...(planned.ratios ?? {}) };
      }
      price = this.gate.price(caller, planned.model);
    } catch (error) {
      if (error instanceof TaskRelayError) return taskError(error.message, error.code, error.httpStatus);
      throw error;
    }
    const channel = origin ? this.originChannel(origin) : this.gate.channelFor(caller, planned.model, provider.channelTypes);
    const quota = withRatios(price.quota, planned.ratios);
    let charge: TaskCharge;
    try {
      charge = await this.billing.reserve(caller, quota);
    } catch (error) {
      if (error instanceof TaskRelayError) return taskError(error.message, error.code, error.httpStatus);
      throw error;
    }
    const publicId = `task_${randomAlnum(32)}`;
    let outcome: SubmitOutcome;
    try {
      outcome = await provider.submit(channel, planned, { publicId, origin });
    } catch (error) {
      await charge.release();
      this.logger.warn(`${platform} channel #${channel.id}: ${(error as Error).message}`);
      return taskError('the task provider could not be reached', 'do_request_failed', 502);
    }
    if (!outcome.ok) {
      await charge.release();
      return taskError(outcome.message, outcome.code, outcome.status);
    }
    const now = nowSeconds();
    const taskId = provider.publicIds ? publicId : outcome.upstreamId;
    const row: Partial<TaskEntity> = {
      createdAt: now,
      updatedAt: now,
      taskId,
      platform: provider.platformOf(channel),
      userId: caller.userId,
      group: caller.group,
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
        },
      },
      data: null,
    };
    // The row and the charge commit together (when they cannot, the reservation goes back).
    await charge.commit(
      {
        channelId: channel.id,
        channelName: channel.name,
        modelName: planned.model,
        group: caller.group,
        ip: caller.recordIp ? call.ip : '',
        content: `fixed price ${price.modelPrice.toFixed(2)}, group ratio ${price.groupRatio.toFixed(2)}, action ${planned.action}, task ${taskId}`,
        other: {
          model_price: price.modelPrice,
          group_ratio: price.groupRatio,
          task_id: taskId,
          request_path: call.path,
          ...(planned.ratios ? { other_ratios: planned.ratios } : {}),
        },
      },
      (manager) => this.rows.insert(row, manager),
    );
    return { status: outcome.status, body: outcome.body };
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
