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

/** new-api's action names and the Vidu endpoint each one posts to. */
const PATHS: Record<string, string> = {
  textGenerate: '/text2video',
  generate: '/img2video',
  firstTailGenerate: '/start-end2video',
  referenceGenerate: '/reference2video',
};

/** No images: text to video; one: image to video; two: first and last frame; more: reference images. */
function actionFor(images: number, metadataAction: unknown): string {
  if (typeof metadataAction === 'string' && PATHS[metadataAction]) return metadataAction;
  if (images === 0) return 'textGenerate';
  if (images === 1) return 'generate';
  return images === 2 ? 'firstTailGenerate' : 'referenceGenerate';
}

const STATES: Record<string, string> = {
  created: TaskStatus.Submitted,
  queueing: TaskStatus.Submitted,
  processing: TaskStatus.InProgress,
  success: TaskStatus.Success,
  failed: TaskStatus.Failure,
};

const auth = (channel: RelayChannel) => ({ authorization: `Token ${channel.upstream.key.trim()}` });

/**
 * Vidu (channel type 52), `{base}/ent/v2/…` with `Authorization: Token <key>`: text, image, first/last-frame
 * and reference-image videos from the unified body, billed per call; polled at `/ent/v2/tasks/:id/creations`.
 */
@Injectable()
export class ViduProvider implements TaskProvider {
  readonly platform = 'vidu';
  readonly polls = [String(ChannelType.Vidu)];
  readonly channelTypes = [ChannelType.Vidu];
  readonly publicIds = true;

  constructor(private readonly upstream: TaskUpstream) {}

  platformOf(): string {
    return String(ChannelType.Vidu);
  }

  plan(_action: string, body: unknown): PlannedSubmit {
    const request = readVideoRequest(body, 'viduq1');
    const action = actionFor(request.images.length, request.metadata.action);
    const { action: _omit, ...metadata } = request.metadata;
    const forwarded: Record<string, unknown> = {
      images: request.images.length ? request.images : undefined,
      prompt: request.prompt || undefined,
      duration: request.duration ?? 5,
      resolution: request.size || '1080p',
      movement_amplitude: 'auto',
      bgm: false,
      ...metadata,
    };
    return { model: request.model, action, body: forwarded, usage: videoUsage(Number(forwarded.duration), forwarded.resolution) };
  }

  async submit(channel: RelayChannel, planned: PlannedSubmit, context: SubmitContext): Promise<SubmitOutcome> {
    let model = channel.modelMapping[planned.model] ?? planned.model;
    // Reference-image videos take the bare viduq2 model only (Vidu's reference2video docs).
    if (planned.action === 'referenceGenerate' && model.includes('viduq2')) model = 'viduq2';
    const upstream = await this.upstream.json(channel, joinUrl(channel.baseUrl, `/ent/v2${PATHS[planned.action]}`), {
      body: { model, ...planned.body },
      headers: auth(channel),
    });
    const answer = (upstream.body ?? {}) as { task_id?: unknown; state?: unknown };
    if (upstream.status >= 400 || typeof answer.task_id !== 'string' || !answer.task_id || answer.state === 'failed')
      return submitRefused(upstream.status, upstreamMessage(upstream.body, upstream.status, 'message'));
    return { ok: true, upstreamId: answer.task_id, status: 200, body: queuedVideo(context.publicId, planned.model) };
  }

  async fetch(channel: RelayChannel, rows: TaskEntity[]): Promise<TaskReport[]> {
    const reports: TaskReport[] = [];
    for (const row of rows) {
      const upstreamId = row.privateData?.upstream_task_id || row.taskId || '';
      const upstream = await this.upstream.json(
        channel,
        joinUrl(channel.baseUrl, `/ent/v2/tasks/${encodeURIComponent(upstreamId)}/creations`),
        {
          headers: auth(channel),
          timeoutMs: 15_000,
        },
      );
      const answer = (upstream.body ?? {}) as { state?: unknown; err_code?: unknown; creations?: { url?: unknown }[] };
      const status = upstream.status === 200 ? STATES[String(answer.state)] : undefined;
      if (!status) continue;
      const url = answer.creations?.[0]?.url;
      reports.push({
        upstreamId,
        status,
        progress: status === TaskStatus.InProgress ? '50%' : '',
        failReason: status === TaskStatus.Failure ? String(answer.err_code || 'task failed') : '',
        resultUrl: status === TaskStatus.Success && typeof url === 'string' ? url : undefined,
        data: answer,
      });
    }
    return reports;
  }
}
