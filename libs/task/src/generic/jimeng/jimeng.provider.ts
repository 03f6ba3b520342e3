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
import { volcSignedHeaders } from './volc-sign.js';

const VERSION = '2022-08-31';
const SUCCESS = 10000;
const IMAGE_COUNT: Record<string, number> = { textGenerate: 0, generate: 1, firstTailGenerate: 2 };

/**
 * Jimeng 3.0 model names stand for a family; the request key names the variant for the images given
 * (Volcengine's Jimeng 3.0 docs): none → text to video, one → first frame, two → first and last frame.
 */
export function jimengReqKey(model: string, images: number): string {
  if (!model.includes('jimeng_v30')) return model;
  if (model === 'jimeng_v30_pro') return 'jimeng_ti2v_v30_pro';
  if (images > 1) return model.replace('jimeng_v30', 'jimeng_i2v_first_tail_v30').replace(/p$/, '');
  if (images === 1) return model.replace('jimeng_v30', 'jimeng_i2v_first_v30').replace(/p$/, '');
  return model.replace('jimeng_v30', 'jimeng_t2v_v30');
}

/** A key starting with "sk-" is another new-api-style gateway in front of Jimeng, under /jimeng with a Bearer key. */
const viaGateway = (channel: RelayChannel) => channel.upstream.key.trim().startsWith('sk-');

/** Jimeng's OpenAPI call: `?Action=…&Version=2022-08-31`, signed with "accessKey|secretKey" (service cv, cn-north-1). */
async function callJimeng(upstream: TaskUpstream, channel: RelayChannel, action: string, body: Record<string, unknown>) {
  const url = new URL(joinUrl(channel.baseUrl, `${viaGateway(channel) ? '/jimeng' : ''}/?Action=${action}&Version=${VERSION}`));
  const text = JSON.stringify(body);
  let headers: Record<string, string>;
  if (viaGateway(channel)) headers = { authorization: `Bearer ${channel.upstream.key.trim()}` };
  else {
    const [accessKey, secretKey] = channel.upstream.key.split('|').map((part) => part.trim());
    if (!accessKey || !secretKey) throw new Error('invalid Jimeng key: the channel key must be accessKey|secretKey');
    headers = volcSignedHeaders(url, text, { accessKey, secretKey, region: 'cn-north-1', service: 'cv' });
  }
  return upstream.json(channel, url.toString(), { body, headers, timeoutMs: 60_000 });
}

interface JimengAnswer {
  code?: unknown;
  message?: unknown;
  data?: { task_id?: unknown; status?: unknown; video_url?: unknown };
}

/**
 * Jimeng video on Volcengine (channel type 51): CVSync2AsyncSubmitTask with the request key (model),
 * prompt, frames (121 for 5 s, 241 for 10 s) and images as URLs or base64, polled with
 * CVSync2AsyncGetResult. Billed per call.
 */
@Injectable()
export class JimengProvider implements TaskProvider {
  readonly platform = 'jimeng';
  readonly polls = [String(ChannelType.Jimeng)];
  readonly channelTypes = [ChannelType.Jimeng];
  readonly publicIds = true;

  constructor(private readonly upstream: TaskUpstream) {}

  platformOf(): string {
    return String(ChannelType.Jimeng);
  }

  plan(_action: string, body: unknown): PlannedSubmit {
    const request = readVideoRequest(body, 'jimeng_vgfm_t2v_l20');
    const images = request.images;
    const byUrl = images.length > 0 && images[0]!.startsWith('http');
    const forwarded: Record<string, unknown> = {
      prompt: request.prompt || undefined,
      frames: request.duration === 10 ? 241 : 121,
      seed: -1,
      aspect_ratio: '16:9',
      ...(byUrl ? { image_urls: images } : images.length ? { binary_data_base64: images } : {}),
      ...request.metadata,
    };
    const seconds = forwarded.frames === 241 ? 10 : 5;
    return {
      model: request.model,
      action: images.length > 1 ? 'firstTailGenerate' : images.length === 1 ? 'generate' : 'textGenerate',
      body: forwarded,
      usage: videoUsage(seconds, undefined),
    };
  }

  async submit(channel: RelayChannel, planned: PlannedSubmit, context: SubmitContext): Promise<SubmitOutcome> {
    const model = channel.modelMapping[planned.model] ?? planned.model;
    const reqKey = jimengReqKey(model, IMAGE_COUNT[planned.action] ?? 0);
    const upstream = await callJimeng(this.upstream, channel, 'CVSync2AsyncSubmitTask', { req_key: reqKey, ...planned.body });
    const answer = (upstream.body ?? {}) as JimengAnswer;
    const taskId = answer.data?.task_id;
    if (Number(answer.code) !== SUCCESS || typeof taskId !== 'string' || !taskId) {
      const message = typeof answer.message === 'string' && answer.message ? answer.message : `upstream answered ${upstream.status}`;
      return submitRefused(upstream.status, message, String(answer.code ?? 'task_failed'));
    }
    return { ok: true, upstreamId: taskId, status: 200, body: queuedVideo(context.publicId, planned.model) };
  }

  async fetch(channel: RelayChannel, rows: TaskEntity[]): Promise<TaskReport[]> {
    const reports: TaskReport[] = [];
    for (const row of rows) {
      const upstreamId = row.privateData?.upstream_task_id || '';
      const model = row.properties?.upstream_model_name || row.properties?.origin_model_name || 'jimeng_vgfm_t2v_l20';
      const reqKey = jimengReqKey(channel.modelMapping[model] ?? model, IMAGE_COUNT[row.action ?? ''] ?? 0);
      const upstream = await callJimeng(this.upstream, channel, 'CVSync2AsyncGetResult', { req_key: reqKey, task_id: upstreamId });
      const answer = (upstream.body ?? {}) as JimengAnswer;
      if (!upstream.body || typeof upstream.body !== 'object' || upstream.status >= 500) continue;
      const failed = Number(answer.code) !== SUCCESS || answer.data?.status === 'not_found' || answer.data?.status === 'expired';
      const done = !failed && answer.data?.status === 'done';
      reports.push({
        upstreamId,
        status: failed
          ? TaskStatus.Failure
          : done
            ? TaskStatus.Success
            : answer.data?.status === 'in_queue'
              ? TaskStatus.Queued
              : TaskStatus.InProgress,
        progress: failed || done ? '100%' : answer.data?.status === 'in_queue' ? '10%' : '50%',
        failReason: failed ? String(answer.message || answer.data?.status || 'task failed') : '',
        resultUrl: done && typeof answer.data?.video_url === 'string' ? answer.data.video_url : undefined,
        data: answer,
      });
    }
    return reports;
  }
}
