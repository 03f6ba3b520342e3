import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { nowSeconds } from '@gw/database';
import { TaskBilling } from '../shared/task-billing.service.js';
import { TaskGate } from '../shared/task-gate.js';
import { emptySummary, TaskPoller, type PollingFamily, type PollSummary } from '../shared/task-poller.service.js';
import { TASK_PROVIDERS, type TaskProvider, type TaskReport } from './task-provider.js';
import { TaskStatus, type TaskEntity } from './task.entity.js';
import { TaskRepository } from './task.repository.js';
import { finalTaskQuota } from './task-settlement.js';

const BATCH = 100;

/**
 * Polling of the `tasks` table (new-api TaskPollingLoop): unfinished rows grouped by platform and
 * channel, asked of their provider; failures refunded exactly once, timed-out rows failed and refunded.
 */
@Injectable()
export class GenericTaskPoller implements PollingFamily, OnModuleInit {
  readonly name = 'tasks';
  private readonly logger = new Logger('TaskPoll');
  private readonly providers: Map<string, TaskProvider>;

  constructor(
    private readonly rows: TaskRepository,
    private readonly gate: TaskGate,
    private readonly billing: TaskBilling,
    private readonly poller: TaskPoller,
    @Inject(TASK_PROVIDERS) providers: TaskProvider[],
  ) {
    this.providers = new Map(providers.flatMap((provider) => provider.polls.map((platform) => [platform, provider] as const)));
  }

  onModuleInit(): void {
    this.poller.register(this);
  }

  async pollOnce(options: { limit: number; timeoutMinutes: number; nowMs: number }): Promise<PollSummary> {
    const summary = emptySummary();
    const cutoff = options.timeoutMinutes > 0 ? Math.floor(options.nowMs / 1000) - options.timeoutMinutes * 60 : 0;
    const groups = new Map<string, TaskEntity[]>();
    for (const row of await this.rows.unfinished(options.limit)) {
      if (cutoff && row.submitTime > 0 && row.submitTime < cutoff) {
        if (await this.fail(row, 'task timed out', {}, summary)) summary.timedOut++;
        continue;
      }
      const key = `${row.platform}:${row.channelId}`;
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    for (const rows of groups.values()) {
      const first = rows[0]!;
      const provider = this.providers.get(first.platform ?? '');
      const channel = this.gate.channelById(first.channelId);
      if (!provider || !channel) continue; // Unknown platform or deleted channel: left to the timeout.
      for (let i = 0; i < rows.length; i += BATCH) {
        const batch = rows.slice(i, i + BATCH);
        let reports: TaskReport[];
        try {
          reports = await provider.fetch(channel, batch);
        } catch (error) {
          this.logger.warn(`${provider.platform} channel #${channel.id}: ${(error as Error).message}`);
          continue;
        }
        const byId = new Map(reports.map((report) => [report.upstreamId, report]));
        for (const row of batch) {
          const report = byId.get(row.privateData?.upstream_task_id || row.taskId || '');
          if (report) await this.apply(row, report, summary);
        }
      }
    }
    return summary;
  }

  private async apply(row: TaskEntity, report: TaskReport, summary: PollSummary): Promise<void> {
    const now = nowSeconds();
    const data = report.data === undefined ? row.data : report.data;
    if (report.status === TaskStatus.Failure) {
      await this.fail(row, report.failReason || 'task failed', { data, startTime: report.startTime || row.startTime }, summary);
      return;
    }
    const patch: Partial<TaskEntity> = {
      status: report.status || row.status,
      progress: report.status === TaskStatus.Success ? '100%' : report.progress || row.progress,
      startTime: report.startTime || row.startTime || (report.status === TaskStatus.InProgress ? now : 0),
      finishTime: report.status === TaskStatus.Success ? report.finishTime || now : row.finishTime,
      failReason: row.failReason ?? '',
      data,
      updatedAt: now,
    };
    if (report.resultUrl) patch.privateData = { ...(row.privateData ?? {}), result_url: report.resultUrl };
    const actual = patch.status === TaskStatus.Success ? finalTaskQuota(row, report) : undefined;
    if (actual !== undefined) {
      const settled = await this.billing.succeedAndSettle({
        table: 'tasks',
        id: row.id,
        userId: row.userId,
        tokenId: row.privateData?.token_id ?? 0,
        quota: row.quota,
        actual,
        model: row.properties?.origin_model_name ?? '',
        channelId: row.channelId,
        taskId: row.taskId ?? '',
        group: row.group ?? '',
      });
      if (!settled) return;
      const { status: _status, ...details } = patch;
      await this.rows.updateDetails(row.id, details);
      summary.updated++;
      summary.succeeded++;
      return;
    }
    const same =
      patch.status === row.status &&
      patch.progress === row.progress &&
      JSON.stringify(data ?? null) === JSON.stringify(row.data ?? null) &&
      !report.resultUrl;
    if (same) return;
    if (await this.rows.updateRunning(row.id, patch)) {
      summary.updated++;
      if (patch.status === TaskStatus.Success) summary.succeeded++;
    }
  }

  private async fail(row: TaskEntity, reason: string, details: Partial<TaskEntity>, summary: PollSummary): Promise<boolean> {
    const moved = await this.billing.failAndRefund({
      table: 'tasks',
      id: row.id,
      userId: row.userId,
      tokenId: row.privateData?.token_id ?? 0,
      quota: row.quota,
      model: row.properties?.origin_model_name ?? `${row.platform}_${(row.action ?? '').toLowerCase()}`,
      channelId: row.channelId,
      reason,
      finishTime: nowSeconds(),
    });
    if (!moved) return false;
    await this.rows.updateDetails(row.id, { ...details, updatedAt: nowSeconds() });
    summary.failed++;
    if (row.quota > 0) summary.refunded++;
    return true;
  }
}
