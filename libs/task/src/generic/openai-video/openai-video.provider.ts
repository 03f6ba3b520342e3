import { Injectable } from '@nestjs/common';
import type { RelayChannel } from '@gw/channel';
import { TaskRelayError } from '../../shared/task-error.js';
import { TaskUpstream, fromDataUrl, joinUrl, toMultipart } from '../../shared/upstream-json.js';
import type { ContentSource, PlannedSubmit, SubmitContext, SubmitOutcome, TaskProvider, TaskReport } from '../task-provider.js';
import { TaskStatus, type TaskEntity } from '../task.entity.js';
import { videoUsage } from '../video-request.js';

/** OpenAI (1) and Sora (55) channels speak OpenAI's video API. */
export const OPENAI_VIDEO_CHANNEL_TYPES = [1, 55];
const DEFAULT_SECONDS = 4;
const DEFAULT_SIZE = '720x1280';
/** Sora's large sizes cost 5/3 of the base price per second (new-api). */
const LARGE_SIZES = new Set(['1792x1024', '1024x1792']);

/** The provider's status word → ours (lenient: relays of other vendors use their own words). */
export function videoStatus(word: unknown): string {
  switch (
    String(word ?? '')
      .trim()
      .toLowerCase()
  ) {
    case 'queued':
    case 'pending':
    case 'submitted':
    case 'not_start':
    case 'preparing':
    case 'unknown':
    case 'created':
    case 'starting':
      return TaskStatus.Queued;
    case 'processing':
    case 'in_progress':
    case 'running':
    case 'generating':
      return TaskStatus.InProgress;
    case 'completed':
    case 'complete':
    case 'success':
    case 'succeeded':
    case 'finished':
      return TaskStatus.Success;
    case 'failed':
    case 'failure':
    case 'fail':
    case 'error':
    case 'cancelled':
    case 'canceled':
      return TaskStatus.Failure;
    default:
      return '';
  }
}

/** Our status → the OpenAI video object's. */
export function openAiVideoStatus(status: string | null): string {
  if (status === TaskStatus.InProgress) return 'in_progress';
  if (status === TaskStatus.Success) return 'completed';
  if (status === TaskStatus.Failure) return 'failed';
  return 'queued';
}

/**
 * OpenAI-compatible video generation (`/v1/videos`, `/v1/video/generations`): billed per second of video
 * (the model's per-call price × seconds × a size factor), polled with GET /v1/videos/{id}.
 */
@Injectable()
export class OpenAiVideoProvider implements TaskProvider {
  readonly platform = 'openai-video';
  readonly polls = OPENAI_VIDEO_CHANNEL_TYPES.map(String);
  readonly channelTypes = OPENAI_VIDEO_CHANNEL_TYPES;
  readonly publicIds = true;

  constructor(private readonly upstream: TaskUpstream) {}

  platformOf(channel: RelayChannel): string {
    return String(channel.type);
  }

  plan(action: string, body: unknown): PlannedSubmit {
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new TaskRelayError('the request body must be a JSON object', 400, 'invalid_request');
    const request = { ...(body as Record<string, unknown>) };
    delete request.group;
    if (typeof request.prompt !== 'string' || !request.prompt.trim())
      throw new TaskRelayError('field prompt is required', 400, 'invalid_request');
    if (action.startsWith('remix:')) {
      return {
        model: typeof request.model === 'string' && request.model ? request.model : 'sora-2',
        action: 'remix',
        body: request,
        originTaskId: action.slice('remix:'.length),
      };
    }
    if (typeof request.model !== 'string' || !request.model.trim())
      throw new TaskRelayError('field model is required', 400, 'invalid_request');
    const seconds = Number(request.seconds ?? request.duration ?? DEFAULT_SECONDS);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 600)
      throw new TaskRelayError('seconds must be a positive number of seconds', 400, 'invalid_request');
    const size = typeof request.size === 'string' && request.size ? request.size : DEFAULT_SIZE;
    return {
      model: request.model.trim(),
      action: 'generate',
      body: request,
      ratios: { seconds: Math.ceil(seconds), size: LARGE_SIZES.has(size) ? 1.666667 : 1 },
      usage: videoUsage(Math.ceil(seconds), request.resolution, size),
    };
  }

  async submit(channel: RelayChannel, planned: PlannedSubmit, context: SubmitContext): Promise<SubmitOutcome> {
    const upstreamOrigin = context.origin?.privateData?.upstream_task_id || context.origin?.taskId;
    const path = planned.action === 'remix' ? `/v1/videos/${encodeURIComponent(upstreamOrigin ?? '')}/remix` : '/v1/videos';
    const body = { ...planned.body, model: channel.modelMapping[planned.model] ?? planned.model };
    if (planned.action === 'remix') delete (body as Record<string, unknown>).model;
    // An uploaded reference image goes on as the multipart submit OpenAI's video API takes.
    const upload = fromDataUrl((body as Record<string, unknown>).input_reference) !== undefined;
    const upstream = await this.upstream.json(channel, joinUrl(channel.baseUrl, path), {
      ...(upload ? { form: toMultipart(body, ['input_reference']) } : { body }),
      headers: { authorization: `Bearer ${channel.upstream.key.trim()}` },
    });
    const answer = (upstream.body ?? {}) as Record<string, unknown>;
    const upstreamId = typeof answer.id === 'string' && answer.id ? answer.id : typeof answer.task_id === 'string' ? answer.task_id : '';
    if (upstream.status >= 400 || !upstreamId) {
      const error = answer.error as { message?: unknown; code?: unknown } | undefined;
      const message = typeof error?.message === 'string' ? error.message : `upstream answered ${upstream.status}`;
      return {
        ok: false,
        status: upstream.status >= 400 ? upstream.status : 502,
        code: typeof error?.code === 'string' ? error.code : 'fail_to_submit_task',
        message,
      };
    }
    return { ok: true, upstreamId, status: 200, body: { ...answer, id: context.publicId, task_id: context.publicId } };
  }

  contentSource(channel: RelayChannel, row: TaskEntity): ContentSource {
    const upstreamId = row.privateData?.upstream_task_id || row.taskId || '';
    return {
      url: joinUrl(channel.baseUrl, `/v1/videos/${encodeURIComponent(upstreamId)}/content`),
      headers: { authorization: `Bearer ${channel.upstream.key.trim()}` },
    };
  }

  async fetch(channel: RelayChannel, rows: TaskEntity[]): Promise<TaskReport[]> {
    const reports: TaskReport[] = [];
    for (const row of rows) {
      const upstreamId = row.privateData?.upstream_task_id || row.taskId || '';
      const upstream = await this.upstream.json(channel, joinUrl(channel.baseUrl, `/v1/videos/${encodeURIComponent(upstreamId)}`), {
        method: 'GET',
        headers: { authorization: `Bearer ${channel.upstream.key.trim()}` },
        timeoutMs: 15_000,
      });
      if (upstream.status !== 200 || !upstream.body || typeof upstream.body !== 'object') continue;
      const item = upstream.body as Record<string, unknown>;
      const status = videoStatus(item.status);
      const progress = Number(item.progress);
      const error = item.error as { message?: unknown } | undefined;
      const rendered = status === TaskStatus.Success && Number(item.seconds) > 0 ? Math.ceil(Number(item.seconds)) : undefined;
      reports.push({
        upstreamId,
        status,
        progress: Number.isFinite(progress) && progress > 0 ? `${Math.min(100, Math.round(progress))}%` : '',
        failReason: status === TaskStatus.Failure ? (typeof error?.message === 'string' ? error.message : 'task failed') : '',
        finishTime: Number(item.completed_at) || 0,
        data: item,
        // The length really rendered re-prices a per-second model at completion.
        finalRatios: rendered ? { seconds: rendered } : undefined,
        usage: rendered ? { seconds: rendered } : undefined,
      });
    }
    return reports;
  }
}

/** The OpenAI video object of a stored task: our status and progress over the provider's last answer. */
export function toOpenAiVideo(row: TaskEntity): Record<string, unknown> {
  const data = row.data && typeof row.data === 'object' && !Array.isArray(row.data) ? (row.data as Record<string, unknown>) : {};
  // Only an OpenAI-shaped provider answer is merged in (Kling and others keep their own shape in data).
  const stored = data.object === 'video' ? data : {};
  const video: Record<string, unknown> = {
    object: 'video',
    model: row.properties?.origin_model_name ?? '',
    created_at: row.createdAt,
    ...stored,
    id: row.taskId,
    task_id: row.taskId,
    status: openAiVideoStatus(row.status),
    progress: Number.parseInt(row.progress ?? '0', 10) || 0,
  };
  if (row.status === TaskStatus.Failure) video.error = { message: row.failReason || 'task failed', code: 'task_failed' };
  if (row.finishTime && row.status === TaskStatus.Success) video.completed_at = row.finishTime;
  if (row.privateData?.result_url) video.metadata = { url: row.privateData.result_url };
  return video;
}
