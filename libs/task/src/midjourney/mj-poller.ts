import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { RelayChannel } from '@gw/channel';
import { TaskBilling } from '../shared/task-billing.service.js';
import { TaskGate } from '../shared/task-gate.js';
import { emptySummary, TaskPoller, type PollingFamily, type PollSummary } from '../shared/task-poller.service.js';
import { joinUrl, TaskUpstream } from '../shared/upstream-json.js';
import { MjStatus, type MidjourneyEntity } from './midjourney.entity.js';
import { mjModelName } from './mj-actions.js';
import { MjRepository } from './mj.repository.js';

/** The `mj-api-secret` of a proxy channel (a key pasted with its "Bearer " prefix still works). */
export function channelSecret(channel: RelayChannel): string {
  return channel.upstream.key.trim().replace(/^Bearer\s+/i, '');
}

/** Ids asked of a proxy per request. */
const BATCH = 100;

type ProxyTask = Record<string, unknown>;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function num(value: unknown): number {
  const n = Number(value);
  return Number.isFinite(n) ? n : 0;
}

function jsonOrEmpty(value: unknown): string {
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

/** The row fields a proxy's task report sets. */
export function reportPatch(item: ProxyTask): Partial<MidjourneyEntity> {
  return {
    code: 1,
    progress: text(item.progress) || '0%',
    promptEn: text(item.promptEn),
    state: text(item.state),
    submitTime: num(item.submitTime),
    startTime: num(item.startTime),
    finishTime: num(item.finishTime),
    imageUrl: text(item.imageUrl),
    videoUrl: text(item.videoUrl),
    videoUrls: jsonOrEmpty(item.videoUrls),
    status: text(item.status),
    failReason: text(item.failReason),
    buttons: jsonOrEmpty(item.buttons),
    properties: jsonOrEmpty(item.properties),
  };
}

/**
 * Midjourney polling (new-api UpdateMidjourneyTaskBulk): unfinished rows grouped by channel, asked of
 * their proxy with list-by-condition in batches; a failure (FAILURE status or a fail reason) is refunded
 * exactly once; rows older than TASK_TIMEOUT_MINUTES are failed and refunded.
 */
@Injectable()
export class MjPoller implements PollingFamily, OnModuleInit {
  readonly name = 'midjourney';
  private readonly logger = new Logger('MidjourneyPoll');

  constructor(
    private readonly rows: MjRepository,
    private readonly gate: TaskGate,
    private readonly billing: TaskBilling,
    private readonly poller: TaskPoller,
    private readonly upstream: TaskUpstream,
  ) {}

  onModuleInit(): void {
    this.poller.register(this);
  }

  async pollOnce(options: { limit: number; timeoutMinutes: number; nowMs: number }): Promise<PollSummary> {
    const summary = emptySummary();
    const pending = await this.rows.unfinished(options.limit);
    const cutoff = options.timeoutMinutes > 0 ? options.nowMs - options.timeoutMinutes * 60_000 : 0;
    const byChannel = new Map<number, MidjourneyEntity[]>();
    for (const row of pending) {
      if (cutoff && row.submitTime > 0 && row.submitTime < cutoff) {
        if (await this.fail(row, 'task timed out')) summary.timedOut++;
        continue;
      }
      const list = byChannel.get(row.channelId) ?? [];
      list.push(row);
      byChannel.set(row.channelId, list);
    }
    for (const [channelId, rows] of byChannel) {
      const channel = this.gate.channelById(channelId);
      if (!channel) continue; // Deleted channel: left to the timeout.
      for (let i = 0; i < rows.length; i += BATCH) await this.pollBatch(channel, rows.slice(i, i + BATCH), summary);
    }
    return summary;
  }

  private async pollBatch(channel: RelayChannel, rows: MidjourneyEntity[], summary: PollSummary): Promise<void> {
    const ids = [...new Set(rows.map((row) => row.mjId!))];
    let items: ProxyTask[];
    try {
      const upstream = await this.upstream.json(channel, joinUrl(channel.baseUrl, '/mj/task/list-by-condition'), {
        body: { ids },
        headers: { 'mj-api-secret': channelSecret(channel) },
        timeoutMs: 30_000,
      });
      if (upstream.status !== 200 || !Array.isArray(upstream.body)) {
        this.logger.warn(`channel #${channel.id}: list-by-condition answered ${upstream.status}`);
        return;
      }
      items = upstream.body as ProxyTask[];
    } catch (error) {
      this.logger.warn(`channel #${channel.id}: ${(error as Error).message}`);
      return;
    }
    const reports = new Map<string, ProxyTask>();
    for (const item of items) if (item && typeof item === 'object' && typeof item.id === 'string') reports.set(item.id, item);
    for (const row of rows) {
      const item = reports.get(row.mjId!);
      if (item) await this.apply(row, item, summary);
    }
  }

  /**
   * A proxy's callback (`/mj/notify`) applied as a poll report would be: the same moves, the same
   * exactly-once refund; a finished task is not moved again.
   */
  async applyNotice(row: MidjourneyEntity, item: ProxyTask): Promise<void> {
    await this.apply(row, item, emptySummary());
  }

  private async apply(row: MidjourneyEntity, item: ProxyTask, summary: PollSummary): Promise<void> {
    const patch = reportPatch(item);
    if (patch.status === MjStatus.Failure || (patch.failReason && patch.progress !== '100%')) {
      const { status: _status, progress: _progress, ...details } = patch;
      if (await this.fail(row, patch.failReason || 'task failed', details)) {
        summary.failed++;
        if (row.quota > 0) summary.refunded++;
      }
      return;
    }
    if (patch.status === MjStatus.Success) patch.progress = '100%';
    if (!changed(row, patch)) return;
    if (await this.rows.updateRunning(row.id, patch)) {
      summary.updated++;
      if (patch.status === MjStatus.Success) summary.succeeded++;
    }
  }

  /** FAILURE, its reason and its refund in one transaction; other details follow. False when already finished. */
  private async fail(row: MidjourneyEntity, reason: string, details: Partial<MidjourneyEntity> = {}): Promise<boolean> {
    const moved = await this.billing.failAndRefund({
      table: 'midjourneys',
      id: row.id,
      userId: row.userId,
      tokenId: row.tokenId,
      quota: row.quota,
      model: mjModelName(row.action ?? ''),
      channelId: row.billingChannelId || row.channelId,
      reason,
      finishTime: details.finishTime || Date.now(),
    });
    const { finishTime: _finish, ...rest } = details;
    if (moved && Object.keys(rest).length > 0) await this.rows.updateDetails(row.id, rest);
    return moved;
  }
}

function changed(row: MidjourneyEntity, patch: Partial<MidjourneyEntity>): boolean {
  return (Object.keys(patch) as (keyof MidjourneyEntity)[]).some((key) => (row[key] ?? '') !== (patch[key] ?? ''));
}
