import type { Request, Response } from 'express';
import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { NoEnvelope } from '@gw/core';
import { callOf, sendTaskAnswer } from '../../shared/send-task-answer.js';
import { taskError, TaskRelayService } from '../task-relay.service.js';
import { toKlingTask } from './kling.provider.js';

/** Kling's native routes (new-api `/kling/v1`): submit text2video or image2video, read a task back. */
@Controller('kling/v1/videos')
@NoEnvelope()
export class KlingController {
  constructor(private readonly tasks: TaskRelayService) {}

  @Post(':kind')
  submit(@Param('kind') kind: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, async () => {
      if (kind !== 'text2video' && kind !== 'image2video') return taskError(`unknown Kling endpoint ${kind}`, 'invalid_request', 404);
      return this.tasks.submit('kling', kind, callOf(req));
    });
  }

  @Get(':kind/:id')
  get(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, async () => {
      const own = await this.tasks.ownTask(id, callOf(req));
      return own ? { status: 200, body: toKlingTask(own.row) } : taskError('task_not_exist', 'task_not_exist', 404);
    });
  }
}
