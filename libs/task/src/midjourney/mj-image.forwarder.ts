import { Readable } from 'node:stream';
import type { Response } from 'express';
import { Injectable, Logger } from '@nestjs/common';
import { assertOutboundUrl } from '@gw/core';
import { OptionService } from '@gw/option';
import { MjRepository } from './mj.repository.js';

const IMAGE_TIMEOUT_MS = 60_000;

/**
 * GET /mj/image/:id: streams a task's image from the URL the proxy reported, so clients never see the
 * proxy's address. The URL is checked first (no private addresses unless AllowPrivateOutboundUrls).
 */
@Injectable()
export class MjImageForwarder {
  private readonly logger = new Logger('MjImage');

  constructor(
    private readonly rows: MjRepository,
    private readonly options: OptionService,
  ) {}

  async forward(mjId: string, res: Response): Promise<void> {
    const row = await this.rows.findByMjId(mjId);
    if (!row?.imageUrl) {
      res.status(400).json({ error: 'midjourney_task_not_found' });
      return;
    }
    try {
      await assertOutboundUrl(row.imageUrl, { allowPrivate: this.options.get('AllowPrivateOutboundUrls') });
    } catch (error) {
      res.status(403).json({ error: `request blocked: ${(error as Error).message}` });
      return;
    }
    let upstream: globalThis.Response;
    try {
      upstream = await fetch(row.imageUrl, { signal: AbortSignal.timeout(IMAGE_TIMEOUT_MS), redirect: 'error' });
    } catch (error) {
      this.logger.warn(`image of ${mjId}: ${(error as Error).message}`);
      res.status(502).json({ error: 'http_get_image_failed' });
      return;
    }
    if (upstream.status !== 200 || !upstream.body) {
      res.status(upstream.status === 200 ? 502 : upstream.status).json({ error: (await upstream.text().catch(() => '')).slice(0, 500) });
      return;
    }
    res.status(200).setHeader('Content-Type', upstream.headers.get('content-type') || 'image/jpeg');
    Readable.fromWeb(upstream.body as import('node:stream/web').ReadableStream)
      .on('error', () => res.destroy())
      .pipe(res);
  }
}
