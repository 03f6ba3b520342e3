import type { Readable } from 'node:stream';
import type { Response } from 'express';
import { Injectable, Logger } from '@nestjs/common';
import { outboundOpen, OutboundUrlError, type OutboundStream } from '@gw/core';
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
    let upstream: OutboundStream;
    try {
      // Checked and fetched in one step: the connection goes to the address that was checked (no DNS rebinding).
      upstream = await outboundOpen(row.imageUrl, {
        allowPrivate: this.options.get('AllowPrivateOutboundUrls'),
        timeoutMs: IMAGE_TIMEOUT_MS,
      });
    } catch (error) {
      if (error instanceof OutboundUrlError && !error.message.startsWith('request failed')) {
        res.status(403).json({ error: `request blocked: ${error.message}` });
        return;
      }
      this.logger.warn(`image of ${mjId}: ${(error as Error).message}`);
      res.status(502).json({ error: 'http_get_image_failed' });
      return;
    }
    if (upstream.status !== 200) {
      const text = await readSome(upstream.body);
      res.status(upstream.status < 400 ? 502 : upstream.status).json({ error: text });
      return;
    }
    const type = upstream.headers['content-type'];
    res.status(200).setHeader('Content-Type', typeof type === 'string' && type ? type : 'image/jpeg');
    upstream.body.on('error', () => res.destroy()).pipe(res);
  }
}

/** The first 500 characters of an error body, for the client's message; the rest is dropped unread. */
async function readSome(body: Readable): Promise<string> {
  let text = '';
  // Destroying an unfinished undici body emits an AbortError: heard here, so it is not an uncaught error.
  body.on('error', () => undefined);
  try {
    for await (const chunk of body) {
      text += (chunk as Buffer).toString('utf8');
      if (text.length >= 500) break;
    }
  } catch {
    // An error body that breaks off says nothing more.
  }
  body.destroy();
  return text.slice(0, 500);
}
