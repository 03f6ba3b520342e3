import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import type { Request, Response } from 'express';
import { Controller, Get, Param, Post, Req, Res, UseInterceptors } from '@nestjs/common';
import { NoFilesInterceptor } from '@nestjs/platform-express';
import { NoEnvelope } from '@gw/core';
import { callOf, sendTaskAnswer } from '../../shared/send-task-answer.js';
import { joinUrl } from '../../shared/upstream-json.js';
import { taskError, TaskRelayService } from '../task-relay.service.js';
import { toOpenAiVideo } from './openai-video.provider.js';

const PROVIDER = 'openai-video';
const CONTENT_TIMEOUT_MS = 120_000;
const MULTIPART_LIMITS = { limits: { fields: 50, fieldSize: 1024 * 1024 } };

/** OpenAI-compatible video routes: submit, read back from our table, remix, and the finished video's bytes. */
@Controller()
@NoEnvelope()
export class OpenAiVideoController {
  constructor(private readonly tasks: TaskRelayService) {}

  /** JSON, or multipart form fields as the official SDKs send (reference files are not taken yet). */
  @Post('v1/videos')
  @UseInterceptors(NoFilesInterceptor(MULTIPART_LIMITS))
  submit(@Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, () => this.tasks.submit(PROVIDER, 'generate', callOf(req)));
  }

  /** The unified route: the model's channel type picks the provider (Kling, an OpenAI-compatible API …). */
  @Post('v1/video/generations')
  @UseInterceptors(NoFilesInterceptor(MULTIPART_LIMITS))
  generate(@Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, () => this.tasks.submitByModel('generate', callOf(req)));
  }

  @Post('v1/videos/:id/remix')
  @UseInterceptors(NoFilesInterceptor(MULTIPART_LIMITS))
  remix(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, () => this.tasks.submit(PROVIDER, `remix:${id}`, callOf(req)));
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
      const upstreamId = own.row.privateData?.upstream_task_id || own.row.taskId || '';
      const upstream = await fetch(joinUrl(own.channel.baseUrl, `/v1/videos/${encodeURIComponent(upstreamId)}/content`), {
        headers: { authorization: `Bearer ${own.channel.upstream.key.trim()}` },
        signal: AbortSignal.timeout(CONTENT_TIMEOUT_MS),
      }).catch(() => undefined);
      if (upstream?.status !== 200 || !upstream.body)
        return taskError('the video could not be fetched from the provider', 'fetch_content_failed', 502);
      return {
        status: 200,
        stream: Readable.fromWeb(upstream.body as ReadableStream),
        contentType: upstream.headers.get('content-type') || 'video/mp4',
      };
    });
  }
}
