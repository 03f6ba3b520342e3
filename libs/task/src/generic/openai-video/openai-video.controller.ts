import type { Request, Response } from 'express';
import { Controller, Get, Param, Post, Req, Res, UseInterceptors } from '@nestjs/common';
import { FileFieldsInterceptor } from '@nestjs/platform-express';
import { channelRedactingTransform } from '@gw/channel';
import { NoEnvelope, OutboundUrlError, type OutboundStream } from '@gw/core';
import { OptionService } from '@gw/option';
import { UpstreamClient } from '@gw/upstream';
import { callOf, sendTaskAnswer } from '../../shared/send-task-answer.js';
import { TaskRelayError } from '../../shared/task-error.js';
import { taskError, TaskRelayService } from '../task-relay.service.js';
import { toOpenAiVideo } from './openai-video.provider.js';
import { openVideoDownload } from './video-download.js';

const PROVIDER = 'openai-video';
const CONTENT_TIMEOUT_MS = 120_000;
/** Reference images (OpenAI's `input_reference`, up to two frames), kept in memory and bounded. */
const UPLOADS = FileFieldsInterceptor([{ name: 'input_reference', maxCount: 2 }], {
  limits: { fields: 50, fieldSize: 1024 * 1024, files: 2, fileSize: 20 * 1024 * 1024 },
});

interface Upload {
  mimetype: string;
  buffer: Buffer;
}

/**
 * The call with uploaded reference images folded into its body as data URLs (one: `input_reference`;
 * two: `images`, first and last frame), so every provider reads them as it reads JSON submits.
 */
function withUploads(req: Request) {
  const call = callOf(req);
  const files = ((req as Request & { files?: Record<string, Upload[]> }).files?.input_reference ?? []) as Upload[];
  if (files.length === 0) return call;
  if (files.some((file) => !file.mimetype.startsWith('image/') && !file.mimetype.startsWith('video/')))
    throw new TaskRelayError('input_reference must be an image or a video', 400, 'invalid_request');
  const urls = files.map((file) => `data:${file.mimetype};base64,${file.buffer.toString('base64')}`);
  const body = { ...((call.body as Record<string, unknown>) ?? {}) };
  if (urls.length === 1) body.input_reference = urls[0];
  else body.images = urls;
  return { ...call, body };
}

/** OpenAI-compatible video routes: submit, read back from our table, remix, and the finished video's bytes. */
@Controller()
@NoEnvelope()
export class OpenAiVideoController {
  constructor(
    private readonly tasks: TaskRelayService,
    private readonly options: OptionService,
    private readonly upstream: UpstreamClient,
  ) {}

  /** JSON, or multipart as the official SDKs send it (fields, and reference images as files). */
  @Post('v1/videos')
  @UseInterceptors(UPLOADS)
  submit(@Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, () => this.tasks.submit(PROVIDER, 'generate', withUploads(req)));
  }

  /** The unified route: the model's channel type picks the provider (Kling, an OpenAI-compatible API …). */
  @Post('v1/video/generations')
  @UseInterceptors(UPLOADS)
  generate(@Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, () => this.tasks.submitByModel('generate', withUploads(req)));
  }

  @Post('v1/videos/:id/remix')
  @UseInterceptors(UPLOADS)
  remix(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, () => this.tasks.submit(PROVIDER, `remix:${id}`, withUploads(req)));
  }

  @Get(['v1/videos/:id', 'v1/video/generations/:id'])
  get(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, async () => {
      const own = await this.tasks.ownTask(id, callOf(req));
      return own ? { status: 200, body: toOpenAiVideo(own.row) } : taskError('task_not_exist', 'task_not_exist', 404);
    });
  }

  @Get('v1/videos/:id/content')
  content(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, async () => {
      const own = await this.tasks.ownTask(id, callOf(req));
      if (!own) return taskError('task_not_exist', 'task_not_exist', 404);
      if (own.row.status !== 'SUCCESS') return taskError('the video is not ready yet', 'task_not_completed', 400);
      if (!own.channel) return taskError('the channel of this task no longer exists', 'channel_not_found', 400);
      const source =
        own.provider?.contentSource?.(own.channel, own.row) ??
        (own.row.privateData?.result_url ? { url: own.row.privateData.result_url, headers: {} } : undefined);
      if (!source) return taskError('this task has no video to download', 'task_no_content', 400);
      let upstream: OutboundStream;
      try {
        upstream = await openVideoDownload(source, own.channel.baseUrl, {
          allowPrivate: this.options.get('AllowPrivateOutboundUrls'),
          ownPublicOnly: this.upstream.holdsPublic(own.channel.upstream),
          timeoutMs: CONTENT_TIMEOUT_MS,
        });
      } catch (error) {
        const blocked = error instanceof OutboundUrlError && !error.message.startsWith('request failed');
        if (blocked) return taskError(`the video's address was refused: ${error.message}`, 'fetch_content_failed', 403);
        return taskError('the video could not be fetched from the provider', 'fetch_content_failed', 502);
      }
      if (upstream.status !== 200) {
        upstream.body.on('error', () => undefined).destroy();
        return taskError('the video could not be fetched from the provider', 'fetch_content_failed', 502);
      }
      // The download may carry the channel's key (contentSource's headers): its bytes go out with the key masked, as every answer's do.
      const video = upstream.body;
      const redacted = video.pipe(channelRedactingTransform(own.channel));
      video.once('error', (error) => redacted.destroy(error));
      const type = upstream.headers['content-type'];
      return { status: 200, stream: redacted, contentType: typeof type === 'string' && type ? type : 'video/mp4' };
    });
  }
}
