import { Injectable } from '@nestjs/common';
import { ChannelType } from '@gw/contracts';
import type { RelayChannel } from '@gw/channel';
import { TaskUpstream, joinUrl } from '../../shared/upstream-json.js';
import {
  submitRefused,
  type PlannedSubmit,
  type SubmitContext,
  type SubmitOutcome,
  type TaskProvider,
  type TaskReport,
} from '../task-provider.js';
import { TaskStatus, type TaskEntity } from '../task.entity.js';
import { queuedVideo, readVideoRequest, upstreamMessage, videoUsage } from '../video-request.js';

const TASKS_PATH = '/api/v3/contents/generations/tasks';
/** Seedance renders 5 seconds unless asked otherwise. */
const DEFAULT_SECONDS = 5;

/** Ark's task states, with the progress new-api shows for each. */
const STATES: Record<string, [status: string, progress: string]> = {
  pending: [TaskStatus.Queued, '10%'],
  queued: [TaskStatus.Queued, '10%'],
  processing: [TaskStatus.InProgress, '50%'],
  running: [TaskStatus.InProgress, '50%'],
  succeeded: [TaskStatus.Success, '100%'],
  failed: [TaskStatus.Failure, '100%'],
};

const auth = (channel: RelayChannel) => ({ authorization: `Bearer ${channel.upstream.key.trim()}` });

/**
 * Doubao / Seedance video on Volcengine Ark (channel type 54): the unified body becomes Ark's `content`
 * list (the images, then the prompt as the one text item) plus `metadata` fields (resolution, ratio,
 * seed, camera_fixed, watermark …). Charged at submit; a model priced by ratio is settled at the end
 * from the tokens Ark reports (`usage.total_tokens`).
 */
@Injectable()
export class DoubaoVideoProvider implements TaskProvider {
  readonly platform = 'doubao-video';
  readonly polls = [String(ChannelType.DoubaoVideo)];
  readonly channelTypes = [ChannelType.DoubaoVideo];
  readonly publicIds = true;

  constructor(private readonly upstream: TaskUpstream) {}

  platformOf(): string {
    return String(ChannelType.DoubaoVideo);
  }

  plan(_action: string, body: unknown): PlannedSubmit {
    const request = readVideoRequest(body, 'doubao-seedance-1-0-pro-250528');
    const { content: extraContent, ...metadata } = request.metadata;
    const content: Record<string, unknown>[] = [
      ...request.images.map((url) => ({ type: 'image_url', image_url: { url } })),
      // metadata may carry further items (reference videos, audio); its text items give way to the prompt.
      ...(Array.isArray(extraContent) ? extraContent.filter((item) => item && typeof item === 'object' && item.type !== 'text') : []),
      { type: 'text', text: request.prompt },
    ];
    const forwarded: Record<string, unknown> = {
      ...metadata,
      content,
      ...(request.duration !== undefined ? { duration: Math.round(request.duration) } : {}),
    };
    const seconds = Number(forwarded.duration ?? DEFAULT_SECONDS);
    return { model: request.model, action: 'generate', body: forwarded, usage: videoUsage(seconds, forwarded.resolution, request.size) };
  }

  async submit(channel: RelayChannel, planned: PlannedSubmit, context: SubmitContext): Promise<SubmitOutcome> {
    const upstream = await this.upstream.json(channel, joinUrl(channel.baseUrl, TASKS_PATH), {
      body: { model: channel.modelMapping[planned.model] ?? planned.model, ...planned.body },
      headers: auth(channel),
    });
    const answer = (upstream.body ?? {}) as { id?: unknown };
    if (upstream.status >= 400 || typeof answer.id !== 'string' || !answer.id)
      return submitRefused(upstream.status, upstreamMessage(upstream.body, upstream.status, 'error', 'message'));
    return { ok: true, upstreamId: answer.id, status: 200, body: queuedVideo(context.publicId, planned.model) };
  }

  async fetch(channel: RelayChannel, rows: TaskEntity[]): Promise<TaskReport[]> {
    const reports: TaskReport[] = [];
    for (const row of rows) {
      const upstreamId = row.privateData?.upstream_task_id || row.taskId || '';
      const upstream = await this.upstream.json(channel, joinUrl(channel.baseUrl, `${TASKS_PATH}/${encodeURIComponent(upstreamId)}`), {
        headers: auth(channel),
        timeoutMs: 15_000,
      });
      if (upstream.status !== 200 || !upstream.body || typeof upstream.body !== 'object') continue;
      const task = upstream.body as {
        status?: unknown;
        content?: { video_url?: unknown };
        usage?: { total_tokens?: unknown; completion_tokens?: unknown };
        error?: { message?: unknown };
      };
      // An unknown state is work in progress, as new-api reads it.
      const [status, progress] = STATES[String(task.status)] ?? [TaskStatus.InProgress, '30%'];
      const tokens = Number(task.usage?.total_tokens) || Number(task.usage?.completion_tokens) || 0;
      reports.push({
        upstreamId,
        status,
        progress,
        failReason: status === TaskStatus.Failure ? String(task.error?.message || 'task failed') : '',
        resultUrl: status === TaskStatus.Success && typeof task.content?.video_url === 'string' ? task.content.video_url : undefined,
        totalTokens: status === TaskStatus.Success && tokens > 0 ? tokens : undefined,
        usage: status === TaskStatus.Success && tokens > 0 ? { tokens } : undefined,
        data: task,
      });
    }
    return reports;
  }
}
