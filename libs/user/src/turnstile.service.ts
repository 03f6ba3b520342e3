import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, BusinessError, type AppConfig } from '@gw/core';
import { OptionService } from '@gw/option';

const DEFAULT_VERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';

/** Cloudflare Turnstile check on login, register, verification and reset when TurnstileCheckEnabled. */
@Injectable()
export class TurnstileService {
  constructor(
    private readonly options: OptionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async check(token: string | undefined, ip: string): Promise<void> {
    if (!this.options.get('TurnstileCheckEnabled')) return;
    if (!token) throw new BusinessError('Turnstile token is empty');
    const url = this.config.turnstileVerifyUrl || DEFAULT_VERIFY_URL;
    let ok = false;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret: this.options.get('TurnstileSecretKey'), response: token, remoteip: ip }).toString(),
        redirect: 'error',
        signal: AbortSignal.timeout(10_000),
      });
      const data = (await res.json()) as { success?: boolean };
      ok = data.success === true;
    } catch {
      throw new BusinessError('Turnstile verification failed, try again');
    }
    if (!ok) throw new BusinessError('Turnstile verification failed, refresh and try again');
  }
}
