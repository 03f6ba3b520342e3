import type { Request, Response } from 'express';
import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { carriesRequestId, NoEnvelope } from '@gw/core';
import { ModelList, type OpenAiModel } from '../pipeline/model-list.js';
import { RelayPipeline } from '../pipeline/relay-pipeline.js';
import type { FormatId } from '../providers/types.js';
import { TokenRelayAuthenticator } from './relay-auth.js';
import { requestIdOf } from './request-id.js';

/** The key carriers of an Express request (these routes stay on Nest: they are not the hot path). */
function credentials(req: Request) {
  const key = req.query.key;
  return { req, ip: req.ip ?? '', queryKey: typeof key === 'string' ? key : undefined };
}

/**
 * Which client asks: Anthropic's clients always send anthropic-version (new-api also wants x-api-key, but
 * Anthropic's SDK may carry the key as a Bearer token), Gemini's send x-goog-api-key or ?key=.
 */
function clientFormat(req: Request): FormatId {
  if (req.headers['anthropic-version']) return 'anthropic';
  if (req.headers['x-goog-api-key'] || typeof req.query.key === 'string') return 'gemini';
  return 'openai';
}

/** new-api's `created` (1626777600) as Anthropic's RFC 3339 created_at. */
const CREATED_AT = new Date(1626777600 * 1000).toISOString().replace('.000Z', 'Z');

function anthropicList(models: OpenAiModel[]) {
  const data = models.map((m) => ({ type: 'model', id: m.id, display_name: m.id, created_at: CREATED_AT }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

function geminiList(models: OpenAiModel[]) {
  return {
    models: models.map((m) => ({
      name: `models/${m.id}`,
      displayName: m.id,
      description: '',
      supportedGenerationMethods: ['generateContent', 'streamGenerateContent'],
    })),
    nextPageToken: null,
  };
}

/**
 * The model lists: GET /v1/models and /v1/models/:model in OpenAI's shape (with new-api's extra `success`
 * key on the list), or Anthropic's for Anthropic clients and Gemini's for Gemini clients; GET /v1beta/models
 * in Gemini's shape and /v1beta/openai/models in OpenAI's. Errors come in the client's own shape.
 */
@Controller()
@NoEnvelope()
export class ModelsController {
  constructor(
    private readonly auth: TokenRelayAuthenticator,
    private readonly models: ModelList,
    private readonly pipeline: RelayPipeline,
  ) {}

  @Get('v1/models')
  list(@Req() req: Request, @Res() res: Response): Promise<void> {
    const format = clientFormat(req);
    return this.answer(req, res, format, async () => {
      const models = this.models.list(await this.auth.authenticate(credentials(req)));
      if (format === 'anthropic') return anthropicList(models);
      if (format === 'gemini') return geminiList(models);
      return { success: true, object: 'list', data: models };
    });
  }

  @Get('v1beta/models')
  geminiModels(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.answer(req, res, 'gemini', async () => geminiList(this.models.list(await this.auth.authenticate(credentials(req)))));
  }

  @Get('v1beta/models/:model')
  geminiModel(@Req() req: Request, @Res() res: Response, @Param('model') model: string): Promise<void> {
    return this.answer(
      req,
      res,
      'gemini',
      async () => geminiList([this.models.get(await this.auth.authenticate(credentials(req)), model.replace(/^models\//, ''))]).models[0],
    );
  }

  @Get('v1beta/openai/models')
  openAiModels(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.answer(req, res, 'openai', async () => ({
      success: true,
      object: 'list',
      data: this.models.list(await this.auth.authenticate(credentials(req))),
    }));
  }

  @Get('v1/models/:model')
  retrieve(@Req() req: Request, @Res() res: Response, @Param('model') model: string): Promise<void> {
    const format = clientFormat(req) === 'anthropic' ? 'anthropic' : 'openai';
    return this.answer(req, res, format, async () => {
      const found = this.models.get(await this.auth.authenticate(credentials(req)), model);
      return format === 'anthropic' ? anthropicList([found]).data[0] : found;
    });
  }

  /** A refused key ends with the request id (new-api's token auth); the lists' own errors do not (its handlers). */
  private async answer(req: Request, res: Response, format: FormatId, body: () => Promise<unknown>): Promise<void> {
    const requestId = requestIdOf(req, res);
    try {
      res.json(await body());
    } catch (error) {
      this.pipeline.renderError(res, error, format, carriesRequestId(error) ? requestId : undefined);
    }
  }
}
