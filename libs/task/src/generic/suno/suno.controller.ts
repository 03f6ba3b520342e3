import type { Request, Response } from 'express';
import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { NoEnvelope } from '@gw/core';
import { callOf, sendTaskAnswer } from '../../shared/send-task-answer.js';
import { TaskRelayService } from '../task-relay.service.js';

/** Suno routes (new-api): submit music or lyrics, read tasks back from our table. */
@Controller('suno')
@NoEnvelope()
export class SunoController {
  constructor(private readonly tasks: TaskRelayService) {}

  @Post('submit/:action')
  submit(@Param('action') action: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, () => this.tasks.submit('suno', action, callOf(req)));
  }

  @Post('fetch')
  fetchMany(@Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, () => this.tasks.fetchMany('suno', callOf(req)));
  }

  @Get('fetch/:id')
  fetchOne(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, () => this.tasks.fetchOne('suno', id, callOf(req)));
  }
}
