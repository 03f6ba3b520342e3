import express, { type Request, type Response } from 'express';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { APP_CONFIG, type AppConfig } from '@gw/core';
import { RelayPipeline } from '../pipeline/relay-pipeline.js';
import type { RelayKind } from '../pipeline/relay-request.js';
import { relayJsonBody } from './json-body.js';
import { requestIdMiddleware } from './request-id.js';

const ROUTES: [string, RelayKind][] = [
  ['/v1/chat/completions', 'chat'],
  ['/v1/completions', 'completions'],
  ['/v1/embeddings', 'embeddings'],
];

/**
 * The hot path, as plain Express handlers mounted while the app is being built, i.e. ahead of the
 * bootstrap's body parsers and of Nest's few hundred routes (Express walks its stack in order).
 * Nest's per-request pipeline (global guards, interceptors, the envelope) does nothing for these
 * routes: no console role, no envelope, and the pipeline renders its own errors. Each route parses
 * its JSON body itself with the same limit (plain JSON on a fast path, anything else through
 * express.json); a malformed body falls through to the bootstrap's body error handler (an OpenAI 400). The request-id middleware goes first, so every relay answer, even
 * that 400, carries X-Oneapi-Request-Id.
 */
@Injectable()
export class RelayRoutes {
  private readonly logger = new Logger('RelayRoutes');

  constructor(host: HttpAdapterHost, pipeline: RelayPipeline, @Inject(APP_CONFIG) config: AppConfig) {
    const app = host.httpAdapter?.getInstance<express.Express>();
    if (!app) return;
    app.use(requestIdMiddleware);
    const limit = config.http.maxBodyBytes;
    const json = relayJsonBody(limit, express.json({ limit, type: ['application/json', 'application/*+json'] }));
    for (const [path, kind] of ROUTES) {
      app.post(path, json, (req: Request, res: Response) => {
        pipeline.handle(kind, req, res).catch((error: Error) => {
          this.logger.error(`${path}: ${error.stack ?? error.message}`);
          if (!res.headersSent) res.status(500).json({ error: { message: 'internal server error', type: 'new_api_error', param: '', code: 'internal_error' } });
          else res.end();
        });
      });
    }
  }
}
