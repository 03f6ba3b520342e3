import { Injectable, Logger } from '@nestjs/common';
import { ChannelUsageService } from '@gw/channel';
import { LogService, type NewLog } from '@gw/log';
import type { SettleOutcome } from '@gw/token';
import { UserNotifyService } from '@gw/user';
import { RelayAuthenticator, type RelayCaller } from '../pipeline/ports.js';
import { RelayError } from '../pipeline/relay-error.js';
import type { BillingSession } from './billing-session.js';
import { ReserveOverlap } from './reserve-overlap.js';

/**
 * The money moves of a relayed call and what goes with them, one path for the HTTP pipeline and the Realtime
 * relay: a reserve whose refusal is remembered (the reserve overlap backs off, a token found short is marked
 * exhausted), and a settle that then updates the token cache, the channel's used quota and the user's balance
 * notice, and records the consume log row built from the outcome.
 */
@Injectable()
export class RelayCharges {
  private readonly logger = new Logger('Relay');

  constructor(
    private readonly auth: RelayAuthenticator,
    private readonly overlap: ReserveOverlap,
    private readonly channelUsage: ChannelUsageService,
    private readonly logs: LogService,
    private readonly notices: UserNotifyService,
  ) {}

  /** Reserves `amount`, or throws new-api's 403 (insufficient_user_quota / pre_consume_token_quota_failed). */
  async reserve(billing: BillingSession, who: RelayCaller, amount: number): Promise<void> {
    try {
      await billing.reserve(amount);
    } catch (error) {
      if (error instanceof RelayError && error.httpStatus === 403) this.overlap.refused(who.userId, who.tokenId);
      if (error instanceof RelayError && error.errorCode === 'pre_consume_token_quota_failed') {
        void this.auth.markExhausted(who.tokenId).catch((e: Error) => this.logger.warn(`mark exhausted: ${e.message}`));
      }
      throw error;
    }
  }

  /**
   * Charges `quota` in full (docs/billing.md) and records the consume row `row` builds from the outcome. Returns
   * the charge: 0 when the session was already settled or refunded, or when the settle failed (logged; the
   * ledger retries it and the recovery job refunds what stays open). Never throws.
   */
  async settle(
    billing: BillingSession,
    who: RelayCaller,
    channelId: number,
    quota: number,
    row: (outcome: SettleOutcome) => NewLog,
  ): Promise<number> {
    try {
      const outcome = await billing.settle(quota);
      if (!outcome) return 0;
      this.auth.applySpend(who.tokenId, outcome.charged);
      this.channelUsage.addUsedQuota(channelId, outcome.charged);
      if (outcome.charged > 0) this.notices.quotaChanged(who.userId);
      this.logs.record(row(outcome));
      return outcome.charged;
    } catch (error) {
      this.logger.error(`settle of ${billing.requestId} failed: ${(error as Error).message}`);
      return 0;
    }
  }
}
