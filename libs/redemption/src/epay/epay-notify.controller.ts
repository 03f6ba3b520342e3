import { Body, Controller, Get, Header, HttpCode, Post, Query } from '@nestjs/common';
import { NoEnvelope } from '@gw/core';
import { EpayNotifyService } from './epay-notify.service.js';

/** First value of each field (a repeated field arrives as an array; anything else is not a string). */
function fields(source: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!source || typeof source !== 'object') return out;
  for (const [name, value] of Object.entries(source as Record<string, unknown>)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') out[name] = first;
  }
  return out;
}

/** The payment provider's callback: public, answered in plain text as epay expects. */
@Controller('api/user/epay')
@NoEnvelope()
export class EpayNotifyController {
  constructor(private readonly notify: EpayNotifyService) {}

  @Get('notify')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  fromQuery(@Query() query: unknown) {
    return this.notify.handle(fields(query));
  }

  /** Form-encoded body; some epay servers POST with the fields in the query string instead. */
  @Post('notify')
  @HttpCode(200)
  @Header('Content-Type', 'text/plain; charset=utf-8')
  fromForm(@Body() form: unknown, @Query() query: unknown) {
    const posted = fields(form);
    return this.notify.handle(Object.keys(posted).length ? posted : fields(query));
  }
}
