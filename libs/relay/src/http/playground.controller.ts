import type { Request, Response } from 'express';
import { Controller, Post, Req, Res } from '@nestjs/common';
import { CurrentUser, NoEnvelope, UserRoute, type Principal } from '@gw/core';
import { RelayPipeline } from '../pipeline/relay-pipeline.js';
import { TokenRelayAuthenticator } from './relay-auth.js';

/** The console playground: session login + New-Api-User (the console guard), billed to the user with no token. */
@Controller()
@NoEnvelope()
export class PlaygroundController {
  constructor(
    private readonly pipeline: RelayPipeline,
    private readonly auth: TokenRelayAuthenticator,
  ) {}

  @Post('pg/chat/completions')
  @UserRoute()
  playground(@Req() req: Request, @Res() res: Response, @CurrentUser() principal: Principal): Promise<void> {
    const call = { req, res, path: req.path, body: req.body as unknown, ip: req.ip ?? '' };
    return this.pipeline.handle('chat', call, () => this.auth.playground(call.body, principal));
  }
}
