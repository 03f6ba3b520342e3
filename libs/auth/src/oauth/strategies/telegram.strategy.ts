import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import passportCustom from 'passport-custom';
import { BusinessError } from '@gw/core';
import { OptionService } from '@gw/option';
import type { ProvenIdentity } from '../identity.js';
import { verifyTelegram } from '../telegram.js';
import { CodeCallback } from './code-callback.js';

/** The Telegram login widget (`telegram`): the query is signed with the bot token (HMAC, constant-time, ≤ 1 day old). */
@Injectable()
export class TelegramStrategy extends PassportStrategy(passportCustom.Strategy, 'telegram') {
  constructor(
    private readonly callback: CodeCallback,
    private readonly options: OptionService,
  ) {
    super();
  }

  validate(req: Request): ProvenIdentity {
    this.callback.assertEnabled('telegram');
    const query = req.query as Record<string, unknown>;
    if (!verifyTelegram(query, this.options.get('TelegramBotToken'))) throw new BusinessError('Telegram data is invalid or has expired');
    const username = typeof query.username === 'string' ? query.username : undefined;
    const name = [query.first_name, query.last_name].filter((s) => typeof s === 'string' && s).join(' ');
    return { provider: 'telegram', aff: '', identity: { id: String(query.id), username, displayName: name || username } };
  }
}
