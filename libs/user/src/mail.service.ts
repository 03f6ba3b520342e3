import { Injectable, Logger } from '@nestjs/common';
import { BusinessError, onFirstUse } from '@gw/core';
import { OptionService } from '@gw/option';

/** Loaded by the first mail sent (see onFirstUse). */
const nodemailer = onFirstUse(async () => (await import('nodemailer')).default);

/** Sends mail through the SMTP server configured in the options (SMTPServer, SMTPPort, ...). */
@Injectable()
export class MailService {
  private readonly logger = new Logger('Mail');

  constructor(private readonly options: OptionService) {}

  get configured(): boolean {
    return Boolean(this.options.get('SMTPServer'));
  }

  async send(to: string, subject: string, html: string): Promise<void> {
    const host = this.options.get('SMTPServer');
    if (!host) throw new BusinessError('SMTP is not configured');
    const account = this.options.get('SMTPAccount');
    const from = this.options.get('SMTPFrom') || account;
    const port = this.options.get('SMTPPort');
    const transport = (await nodemailer()).createTransport({
      host,
      port,
      secure: this.options.get('SMTPSSLEnabled') || port === 465,
      auth: account ? { user: account, pass: this.options.get('SMTPToken') } : undefined,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 15_000,
    });
    try {
      await transport.sendMail({ from: `${this.options.get('SystemName')} <${from}>`, to, subject, html });
    } catch (error) {
      this.logger.warn(`mail to ${to} failed: ${(error as Error).message}`);
      throw new BusinessError('failed to send the email, check the SMTP settings');
    } finally {
      transport.close();
    }
  }
}
