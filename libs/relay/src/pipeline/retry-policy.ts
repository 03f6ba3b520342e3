import { Injectable } from '@nestjs/common';
import { statusMatcher } from '@gw/channel';
import { OptionService } from '@gw/option';

/** 504 and 524 are never retried, whatever AutomaticRetryStatusCodes says (new-api hard-codes this). */
const NEVER_RETRY = new Set([504, 524]);

/** new-api's shouldRetry for an upstream status: AutomaticRetryStatusCodes, never 2xx, always outside 100–599. */
@Injectable()
export class RetryPolicy {
  private spec = '';
  private matches: (status: number) => boolean = () => false;

  constructor(private readonly options: OptionService) {}

  retryTimes(): number {
    return this.options.get('RetryTimes');
  }

  shouldRetryStatus(status: number): boolean {
    if (status < 100 || status > 599) return true;
    if (status >= 200 && status < 300) return false;
    if (NEVER_RETRY.has(status)) return false;
    const spec = this.options.get('AutomaticRetryStatusCodes');
    if (spec !== this.spec) {
      this.spec = spec;
      this.matches = statusMatcher(spec);
    }
    return this.matches(status);
  }
}
