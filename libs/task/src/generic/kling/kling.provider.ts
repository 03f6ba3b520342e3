import { Injectable } from '@nestjs/common';
import type { RelayChannel } from '@gw/channel';
import { TaskRelayError } from '../../shared/task-error.js';
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
import { queuedVideo } from '../video-request.js';
import { klingBearer, klingPathPrefix } from './kling-auth.js';

/** Channel type 50: Kling. */
export const KLING_CHANNEL_TYPE = 50;
/** new-api's action names: with an image "generate" (image2video), else "textGenerate" (text2video). */
const IMAGE_ACTION = 'generate';
const TEXT_ACTION = 'textGenerate';

const ASPECT: Record<string, string> = {
  '1024x1024': '1:1',
  '512x512': '1:1',
  '1280x720': '16:9',
  '1920x1080': '16:9',
  '720x1280': '9:16',
  '1080x1920': '9:16',
};

function endpoint(action: string): string {
  return action === IMAGE_ACTION ? '/v1/videos/image2video' : '/v1/videos/text2video';
}

function klingStatus(word: unknown): string {
  switch (word) {
    case 'submitted':
      return TaskStatus.Submitted;
    case 'processing':
      return TaskStatus.InProgress;
    case 'succeed':
      return TaskStatus.Success;
    case 'failed':
      return TaskStatus.Failure;
    default:
      return '';
  }
}

/**
 * Kling (text2video, image2video): JWT auth from "accessKey|secretKey", billed per call at the model's
 * price, polled with GET on the same endpoint. Accepts Kling's own body (`model_name`, `aspect_ratio` …)
 * and the unified one (`model`, `size`, `duration`).
 */
@Injectable()
export class KlingProvider implements TaskProvider {
  readonly platform = 'kling';
  readonly polls = [String(KLING_CHANNEL_TYPE)];
  readonly channelTypes = [KLING_CHANNEL_TYPE];
  readonly publicIds = true;

  constructor(private readonly upstream: TaskUpstream) {}

  platformOf(): string {
    return String(KLING_CHANNEL_TYPE);
  }

  plan(action: string, body: unknown): PlannedSubmit {
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new TaskRelayError('the request body must be a JSON object', 400, 'invalid_request');
    const request = body as Record<string, unknown>;
    const text = (key: string) => (typeof request[key] === 'string' ? (request[key] as string).trim() : '');
    const image = text('image') || text('image_tail');
    if (!text('prompt') && !image) throw new TaskRelayError('prompt or image is required', 400, 'invalid_request');
    const model = text('model_name') || text('model') || 'kling-v1';
    const duration = Number(request.duration ?? 5);
    if (!Number.isFinite(duration) || duration <= 0)
      throw new TaskRelayError('duration must be a positive number of seconds', 400, 'invalid_request');
    const resolved = action === 'image2video' || (action !== 'text2video' && image) ? IMAGE_ACTION : TEXT_ACTION;
    if (resolved === IMAGE_ACTION && !image) throw new TaskRelayError('image is required for image2video', 400, 'invalid_request');
    const metadata = request.metadata && typeof request.metadata === 'object' ? (request.metadata as Record<string, unknown>) : {};
    const payload: Record<string, unknown> = {
      prompt: text('prompt'),
      negative_prompt: text('negative_prompt') || undefined,
      image: text('image') || undefined,
      image_tail: text('image_tail') || undefined,
      mode: text('mode') || 'std',
      duration: String(duration),
      aspect_ratio: text('aspect_ratio') || ASPECT[text('size')] || '1:1',
      model_name: model,
      model,
      cfg_scale: typeof request.cfg_scale === 'number' ? request.cfg_scale : 0.5,
      camera_control: request.camera_control,
      ...metadata,
    };
    return { model, action: resolved, body: payload, usage: { seconds: duration, mode: String(payload.mode) } };
  }

  async submit(channel: RelayChannel, planned: PlannedSubmit, context: SubmitContext): Promise<SubmitOutcome> {
    const body = {
      ...planned.body,
      model_name: channel.modelMapping[planned.model] ?? planned.model,
      model: channel.modelMapping[planned.model] ?? planned.model,
    };
    const upstream = await this.upstream.json(
      channel,
      joinUrl(channel.baseUrl, klingPathPrefix(channel.upstream.key) + endpoint(planned.action)),
      {
        body,
        headers: { authorization: `Bearer ${klingBearer(channel.upstream.key)}`, 'user-agent': 'kling-sdk/1.0' },
      },
    );
    const answer = (upstream.body ?? {}) as { code?: unknown; message?: unknown; data?: { task_id?: unknown } };
    const upstreamId = typeof answer.data?.task_id === 'string' ? answer.data.task_id : '';
    if (upstream.status >= 400 || answer.code !== 0 || !upstreamId) {
      const message = typeof answer.message === 'string' && answer.message ? answer.message : `upstream answered ${upstream.status}`;
      return submitRefused(upstream.status, message);
    }
    return { ok: true, upstreamId, status: 200, body: queuedVideo(context.publicId, planned.model) };
  }

  async fetch(channel: RelayChannel, rows: TaskEntity[]): Promise<TaskReport[]> {
    const reports: TaskReport[] = [];
    for (const row of rows) {
      const upstreamId = row.privateData?.upstream_task_id || row.taskId || '';
      const upstream = await this.upstream.json(
        channel,
        joinUrl(channel.baseUrl, `${klingPathPrefix(channel.upstream.key)}${endpoint(row.action ?? '')}/${encodeURIComponent(upstreamId)}`),
        {
          method: 'GET',
          headers: { authorization: `Bearer ${klingBearer(channel.upstream.key)}`, 'user-agent': 'kling-sdk/1.0' },
          timeoutMs: 15_000,
        },
      );
      const answer = (upstream.body ?? {}) as { code?: unknown; data?: Record<string, unknown> };
      if (upstream.status !== 200 || answer.code !== 0 || !answer.data) continue;
      const status = klingStatus(answer.data.task_status);
      if (!status) continue;
      const videos = (answer.data.task_result as { videos?: { url?: unknown }[] } | undefined)?.videos;
      const url = typeof videos?.[0]?.url === 'string' ? videos[0].url : undefined;
      reports.push({
        upstreamId,
        status,
        progress: status === TaskStatus.InProgress ? '50%' : '',
        failReason: status === TaskStatus.Failure ? String(answer.data.task_status_msg || 'task failed') : '',
        resultUrl: url,
        data: answer,
      });
    }
    return reports;
  }
}

/** A stored Kling task in Kling's own answer shape (GET /kling/v1/videos/…/:id). */
export function toKlingTask(row: TaskEntity): Record<string, unknown> {
  const word: Record<string, string> = {
    [TaskStatus.Success]: 'succeed',
    [TaskStatus.Failure]: 'failed',
    [TaskStatus.InProgress]: 'processing',
  };
  const stored = (row.data as { data?: { task_result?: unknown } } | null)?.data;
  return {
    code: 0,
    message: '',
    data: {
      task_id: row.taskId,
      task_status: word[row.status ?? ''] ?? 'submitted',
      task_status_msg: row.failReason ?? '',
      task_result: stored?.task_result ?? { videos: row.privateData?.result_url ? [{ url: row.privateData.result_url }] : [] },
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
  };
}
