import { Body, Controller, Post } from '@nestjs/common';
import { BusinessError, body, CriticalRateLimit, RootRoute, withMessage } from '@gw/core';
import { OptionService } from '@gw/option';
import { SmtpTestSchema, type SmtpTestRequest } from '@gw/contracts';
import { MailService } from './mail.service.js';

/**
 * Sends one test mail with the saved SMTP settings, so the operator learns at once whether verification
 * and reset mails will go out (the settings page's "send test mail"). Lives beside MailService because
 * the option lib sits below the user lib.
 */
@Controller('api/option')
@RootRoute()
export class MailTestController {
  constructor(
    private readonly mail: MailService,
    private readonly options: OptionService,
  ) {}

  @Post('smtp_test')
  @CriticalRateLimit()
  async send(@Body(body(SmtpTestSchema)) input: SmtpTestRequest) {
    if (!this.mail.configured) throw new BusinessError('SMTP is not configured: save the SMTP server first');
    const site = this.options.get('SystemName');
    await this.mail.send(
      input.email,
      `${site}: SMTP test`,
      `<p>This is a test mail from ${escapeHtml(site)}. Your SMTP settings work.</p>`,
    );
    return withMessage('test mail sent');
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
