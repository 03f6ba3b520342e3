import { Injectable } from '@nestjs/common';
import { ChannelType } from '@gw/contracts';
import type { RelayChannel } from '@gw/channel';
import { TaskUpstream, joinUrl } from '../../shared/upstream-json.js';
import {
  submitRefused,
  type ContentSource,
  type PlannedSubmit,
  type SubmitContext,
  type SubmitOutcome,
  type TaskProvider,
  type TaskReport,
} from '../task-provider.js';
import { TaskStatus, type TaskEntity } from '../task.entity.js';
import { queuedVideo, readVideoRequest, upstreamMessage, videoUsage } from '../video-request.js';

const VERSION = 'v1beta';
/** Veo renders 8 s unless asked otherwise (Gemini API video docs). */
const DEFAULT_SECONDS = 8;

interface Operation {
  name?: unknown;
  done?: unknown;
  error?: { message?: unknown };
  response?: { generateVideoResponse?: { generatedSamples?: { video?: { uri?: unknown } }[] } };
}

const auth = (channel: RelayChannel) => ({ 'x-goog-api-key': channel.upstream.key.trim() });

/** The URI of the first generated video of a finished operation (opened with the channel key). */
function videoUri(data: unknown): string | undefined {
  const uri = (data as Operation | null)?.response?.generateVideoResponse?.generatedSamples?.[0]?.video?.uri;
  return typeof uri === 'string' && uri ? uri : undefined;
}

/**
 * Google Veo on a Gemini channel (type 24): `models/{model}:predictLongRunning` with the prompt (and a
 * first-frame image) as the one instance and `metadata` as parameters, polled on the returned operation.
 * Billed per second of video (`durationSeconds`). The video URI needs the channel key, so clients read
 * it through `/v1/videos/:id/content`.
 */
@Injectable()
export class VeoProvider implements TaskProvider {
  readonly platform = 'veo';
  readonly polls = ['veo'];
  readonly channelTypes = [ChannelType.Gemini];
  readonly publicIds = true;

  constructor(private readonly upstream: TaskUpstream) {}

  platformOf(): string {
    return 'veo';
  }

  plan(_action: string, body: unknown): PlannedSubmit {
    const request = readVideoRequest(body, 'veo-3.0-generate-001');
    const seconds = Number(request.metadata.durationSeconds ?? request.duration ?? DEFAULT_SECONDS);
    const aspect = request.size === '720x1280' || request.size === '1080x1920' ? '9:16' : request.size ? '16:9' : undefined;
    const image = request.images[0];
    return {
      model: request.model,
      action: image ? 'generate' : 'textGenerate',
      body: {
        instances: [{ prompt: request.prompt, ...(image ? { image: imageInstance(image) } : {}) }],
        parameters: { aspectRatio: aspect, ...request.metadata, durationSeconds: seconds },
      },
      ratios: { seconds: Math.ceil(seconds) },
      // Veo renders 720p unless asked otherwise.
      usage: videoUsage(Math.ceil(seconds), request.metadata.resolution, request.size, '720p'),
    };
  }

  async submit(channel: RelayChannel, planned: PlannedSubmit, context: SubmitContext): Promise<SubmitOutcome> {
    const model = channel.modelMapping[planned.model] ?? planned.model;
    const upstream = await this.upstream.json(
      channel,
      joinUrl(channel.baseUrl, `/${VERSION}/models/${encodeURIComponent(model)}:predictLongRunning`),
      { body: planned.body, headers: auth(channel) },
    );
    const name = (upstream.body as Operation | undefined)?.name;
    if (upstream.status >= 400 || typeof name !== 'string' || !name)
      return submitRefused(upstream.status, upstreamMessage(upstream.body, upstream.status, 'error', 'message'));
    return { ok: true, upstreamId: name, status: 200, body: queuedVideo(context.publicId, planned.model) };
  }

  async fetch(channel: RelayChannel, rows: TaskEntity[]): Promise<TaskReport[]> {
    const reports: TaskReport[] = [];
    for (const row of rows) {
      const upstreamId = row.privateData?.upstream_task_id || '';
      // The operation name is a path ("models/veo…/operations/…"): its slashes stay as they are.
      const upstream = await this.upstream.json(channel, joinUrl(channel.baseUrl, `/${VERSION}/${upstreamId}`), {
        headers: auth(channel),
        timeoutMs: 15_000,
      });
      if (upstream.status !== 200 || !upstream.body || typeof upstream.body !== 'object') continue;
      const op = upstream.body as Operation;
      const failure = typeof op.error?.message === 'string' && op.error.message ? op.error.message : undefined;
      const status = failure ? TaskStatus.Failure : op.done === true ? TaskStatus.Success : TaskStatus.InProgress;
      // Done without a video: the safety filter dropped it, which new-api also reports as a failure.
      const dropped = status === TaskStatus.Success && !videoUri(op);
      reports.push({
        upstreamId,
        status: dropped ? TaskStatus.Failure : status,
        progress: status === TaskStatus.InProgress ? '50%' : '100%',
        failReason: failure ?? (dropped ? 'the provider returned no video' : ''),
        data: op,
      });
    }
    return reports;
  }

  contentSource(channel: RelayChannel, row: TaskEntity): ContentSource | undefined {
    const uri = videoUri(row.data);
    return uri ? { url: uri, headers: auth(channel) } : undefined;
  }
}

/** A first frame as Veo's instance image: inline base64 from a data URL, otherwise a storage URI. */
function imageInstance(image: string): Record<string, string> {
  const inline = /^data:([^;]+);base64,(.+)$/.exec(image);
  return inline ? { mimeType: inline[1]!, bytesBase64Encoded: inline[2]! } : { gcsUri: image };
}
