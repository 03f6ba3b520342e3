import type { IncomingHttpHeaders } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { nowSeconds } from '@gw/database';
import { TaskBilling } from '../shared/task-billing.service.js';
import { TaskRelayError } from '../shared/task-error.js';
import { TaskGate } from '../shared/task-gate.js';
import { TASK_PROVIDERS, type TaskProvider } from './task-provider.js';
import { TaskStatus } from './task.entity.js';
import { TaskRepository } from './task.repository.js';
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

  async submit(platform: string, action: string, call: TaskCall): Promise<TaskAnswer> {
    const provider = this.provider(platform);
    const caller = await this.gate.authenticate(call.headers, call.ip);
    let planned;
    let price;
    try {
      planned = provider.plan(action, call.body);
      price = this.gate.price(caller, planned.model);
    } catch (error) {
      if (error instanceof TaskRelayError) return taskError(error.message, error.code, error.httpStatus);
      throw error;
    }
    const channel = this.gate.channelFor(caller, planned.model, provider.channelTypes);
    let charge;
    try {
      charge = await this.billing.reserve(caller, price.quota);
    } catch (error) {
      if (error instanceof TaskRelayError) return taskError(error.message, error.code, error.httpStatus);
      throw error;
    }
    let outcome;
    try {
      outcome = await provider.submit(channel, planned);
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
    try {
      await this.rows.insert({
        createdAt: now,
        updatedAt: now,
        taskId: outcome.upstreamId,
        platform,
        userId: caller.userId,
        group: caller.group,
        channelId: channel.id,
        quota: price.quota,
        action: planned.action,
        status: TaskStatus.Submitted,
        failReason: '',
        submitTime: now,
        startTime: 0,
        finishTime: 0,
        progress: '0%',
        properties: { input: typeof planned.body.prompt === 'string' ? planned.body.prompt : '', origin_model_name: planned.model, upstream_model_name: planned.model },
        privateData: {
          upstream_task_id: outcome.upstreamId,
          billing_source: 'wallet',
          token_id: caller.tokenId,
          billing_context: { model_price: price.modelPrice, group_ratio: price.groupRatio, origin_model_name: planned.model, per_call_billing: true },
        },
        data: null,
      });
    } catch (error) {
      await charge.release();
      throw error;
    }
    await charge.commit({
      channelId: channel.id,
      channelName: channel.name,
      modelName: planned.model,
      group: caller.group,
      ip: caller.recordIp ? call.ip : '',
      content: `fixed price ${price.modelPrice.toFixed(2)}, group ratio ${price.groupRatio.toFixed(2)}, action ${planned.action}, task ${outcome.upstreamId}`,
      other: { model_price: price.modelPrice, group_ratio: price.groupRatio, task_id: outcome.upstreamId, request_path: call.path },
    });
    return { status: outcome.status, body: outcome.body };
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
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) return taskError('ids must be a list of task ids', 'invalid_request');
    const rows = (await this.rows.findOwnMany(caller.userId, (ids as string[]).slice(0, 1000))).filter((row) => row.platform === platform);
    return { status: 200, body: { code: 'success', message: '', data: rows.map((row) => toTaskDto(row, { withChannel: false })) } };
  }
}
