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
import { queuedVideo, readVideoRequest, videoUsage } from '../video-request.js';

/** MiniMax's `base_resp`: status_code 0 is success. */
interface BaseResp {
  base_resp?: { status_code?: unknown; status_msg?: unknown };
}

const DEFAULT_SECONDS = 6;

/** A size such as "1920x1080" or "768P" to MiniMax's resolution tier; empty leaves the model's default. */
function resolutionOf(size: string): string | undefined {
  for (const tier of ['1080', '768', '720', '512']) if (size.includes(tier)) return `${tier}P`;
  return undefined;
}

const auth = (channel: RelayChannel) => ({ authorization: `Bearer ${channel.upstream.key.trim()}` });
const succeeded = (answer: BaseResp) => Number(answer.base_resp?.status_code) === 0;
const statusMessage = (answer: BaseResp, status: number) =>
  typeof answer.base_resp?.status_msg === 'string' && answer.base_resp.status_msg
    ? answer.base_resp.status_msg
    : `upstream answered ${status}`;

/**
 * MiniMax Hailuo video on a MiniMax channel (type 35): `POST /v1/video_generation`, polled at
 * `/v1/query/video_generation?task_id=`; a finished task names a file whose download URL comes from
 * `/v1/files/retrieve`. Billed per call.
 */
@Injectable()
export class HailuoProvider implements TaskProvider {
  readonly platform = 'hailuo';
  readonly polls = ['hailuo'];
  readonly channelTypes = [ChannelType.MiniMax];
  readonly publicIds = true;

  constructor(private readonly upstream: TaskUpstream) {}

  platformOf(): string {
    return 'hailuo';
  }

  plan(_action: string, body: unknown): PlannedSubmit {
    const request = readVideoRequest(body, 'MiniMax-Hailuo-02');
    const forwarded: Record<string, unknown> = {
      prompt: request.prompt || undefined,
      duration: Math.round(request.duration ?? DEFAULT_SECONDS),
      resolution: resolutionOf(request.size),
      first_frame_image: request.images[0],
      last_frame_image: request.images[1],
      ...request.metadata,
    };
    return {
      model: request.model,
      action: request.images.length ? 'generate' : 'textGenerate',
      body: forwarded,
      usage: videoUsage(Number(forwarded.duration), forwarded.resolution),
    };
  }

  async submit(channel: RelayChannel, planned: PlannedSubmit, context: SubmitContext): Promise<SubmitOutcome> {
    const upstream = await this.upstream.json(channel, joinUrl(channel.baseUrl, '/v1/video_generation'), {
      body: { model: channel.modelMapping[planned.model] ?? planned.model, ...planned.body },
      headers: auth(channel),
    });
    const answer = (upstream.body ?? {}) as BaseResp & { task_id?: unknown };
    if (upstream.status >= 400 || !succeeded(answer) || typeof answer.task_id !== 'string' || !answer.task_id)
      return submitRefused(upstream.status, statusMessage(answer, upstream.status), String(answer.base_resp?.status_code ?? 'task_failed'));
    return { ok: true, upstreamId: answer.task_id, status: 200, body: queuedVideo(context.publicId, planned.model) };
  }

  async fetch(channel: RelayChannel, rows: TaskEntity[]): Promise<TaskReport[]> {
    const reports: TaskReport[] = [];
    for (const row of rows) {
      const upstreamId = row.privateData?.upstream_task_id || row.taskId || '';
      const upstream = await this.upstream.json(
        channel,
        joinUrl(channel.baseUrl, `/v1/query/video_generation?task_id=${encodeURIComponent(upstreamId)}`),
        { headers: auth(channel), timeoutMs: 15_000 },
      );
      if (upstream.status !== 200 || !upstream.body || typeof upstream.body !== 'object') continue;
      const answer = upstream.body as BaseResp & { status?: unknown; file_id?: unknown };
      let report: TaskReport;
      if (!succeeded(answer) || answer.status === 'Fail') {
        report = {
          upstreamId,
          status: TaskStatus.Failure,
          progress: '100%',
          failReason: succeeded(answer) ? 'task failed' : statusMessage(answer, 200),
        };
      } else if (answer.status === 'Success') {
        // No download URL yet: the next pass asks again rather than finishing without a video.
        const url = await this.downloadUrl(channel, String(answer.file_id ?? ''));
        if (!url) continue;
        report = { upstreamId, status: TaskStatus.Success, progress: '100%', failReason: '', resultUrl: url };
      } else {
        report = { upstreamId, status: TaskStatus.InProgress, progress: answer.status === 'Processing' ? '50%' : '30%', failReason: '' };
      }
      reports.push({ ...report, data: answer });
    }
    return reports;
  }

  private async downloadUrl(channel: RelayChannel, fileId: string): Promise<string | undefined> {
    if (!fileId) return undefined;
    const upstream = await this.upstream.json(
      channel,
      joinUrl(channel.baseUrl, `/v1/files/retrieve?file_id=${encodeURIComponent(fileId)}`),
      {
        headers: auth(channel),
        timeoutMs: 15_000,
      },
    );
    const answer = (upstream.body ?? {}) as BaseResp & { file?: { download_url?: unknown } };
    return upstream.status === 200 && succeeded(answer) && typeof answer.file?.download_url === 'string'
      ? answer.file.download_url
      : undefined;
  }
}
