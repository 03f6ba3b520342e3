import type { Request, Response } from 'express';
import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { NoEnvelope } from '@gw/core';
import { ModelList } from '../pipeline/model-list.js';
import { toRelayError } from '../pipeline/relay-error.js';
import { TokenRelayAuthenticator } from './relay-auth.js';
import { requestIdOf } from './request-id.js';

/** The key carriers of an Express request (these two routes stay on Nest: they are not the hot path). */
function credentials(req: Request) {
  const key = req.query.key;
  return { req, ip: req.ip ?? '', queryKey: typeof key === 'string' ? key : undefined };
}

/** GET /v1/models and /v1/models/:model in OpenAI's shape (with new-api's extra `success` key on the list). */
@Controller('v1/models')
@NoEnvelope()
export class ModelsController {
  constructor(
    private readonly auth: TokenRelayAuthenticator,
    private readonly models: ModelList,
  ) {}

  @Get()
  async list(@Req() req: Request, @Res() res: Response): Promise<void> {
    requestIdOf(req, res);
    try {
      const caller = await this.auth.authenticate(credentials(req));
      res.json({ success: true, object: 'list', data: this.models.list(caller) });
    } catch (error) {
      const relayError = toRelayError(error);
      res.status(relayError.httpStatus).json(relayError.body());
    }
  }

  @Get(':model')
  async retrieve(@Req() req: Request, @Res() res: Response, @Param('model') model: string): Promise<void> {
    requestIdOf(req, res);
    try {
      const caller = await this.auth.authenticate(credentials(req));
      res.json(this.models.get(caller, model));
    } catch (error) {
      const relayError = toRelayError(error);
      res.status(relayError.httpStatus).json(relayError.body());
    }
  }
}
