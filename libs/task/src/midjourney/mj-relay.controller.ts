import type { Request, Response } from 'express';
import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { NoEnvelope } from '@gw/core';
import { callOf, sendTaskAnswer } from '../shared/send-task-answer.js';
import { MJ_SUBMIT_ROUTES, type MjRoute } from './mj-actions.js';
import { mjError, MjRelayService } from './mj-relay.service.js';
import { MjImageForwarder } from './mj-image.forwarder.js';

/** Midjourney-proxy routes, under /mj and under a mode prefix (/mj-fast/mj, /mj-relax/mj, /mj-turbo/mj). */
@Controller()
@NoEnvelope()
export class MjRelayController {
  constructor(
    private readonly mj: MjRelayService,
    private readonly images: MjImageForwarder,
  ) {}

  @Post(['mj/submit/:action', ':mode/mj/submit/:action'])
  submit(@Param('action') action: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, async () => {
      if (!MJ_SUBMIT_ROUTES.includes(action as MjRoute)) return mjError('unknown_relay_action');
      return this.mj.submit(action as MjRoute, callOf(req));
    });
  }

  @Post(['mj/insight-face/swap', ':mode/mj/insight-face/swap'])
  swapFace(@Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, () => this.mj.submit('swap-face', callOf(req)));
  }

  @Get(['mj/task/:id/fetch', ':mode/mj/task/:id/fetch'])
  fetch(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, () => this.mj.fetch(callOf(req), id));
  }

  @Get(['mj/task/:id/image-seed', ':mode/mj/task/:id/image-seed'])
  imageSeed(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, () => this.mj.imageSeed(callOf(req), id));
  }

  @Post(['mj/task/list-by-condition', ':mode/mj/task/list-by-condition'])
  listByCondition(@Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, () => this.mj.listByCondition(callOf(req)));
  }

  @Post(['mj/notify', ':mode/mj/notify'])
  notify(@Req() req: Request, @Res() res: Response): Promise<void> {
    return sendTaskAnswer(req, res, () => this.mj.notify(callOf(req)));
  }

  /** No authentication (new-api): the address is what MjForwardUrlEnabled hands out in place of the proxy's. */
  @Get(['mj/image/:id', ':mode/mj/image/:id'])
  image(@Param('id') id: string, @Res() res: Response): Promise<void> {
    return this.images.forward(id, res);
  }
}
