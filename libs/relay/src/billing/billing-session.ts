import { RelayError } from '../pipeline/relay-error.js';
import type { SettleOutcome } from '@gw/token';
import type { QuotaLedger } from './quota-ledger.js';

type State = 'open' | 'reserved' | 'settled' | 'refunded';

/**
 * The money side of one request: reserve an estimate, then settle with the real price or refund.
 * One session per request: settle and refund act once (a second call, or a refund after a settle, does nothing),
 * so an error path that runs twice can never pay back or charge twice.
 */
export class BillingSession {
  private state: State = 'open';
  private reserved = 0;
  /** The reserve while it runs (it may run beside the upstream call): settle and refund wait for it. */
  private pending?: Promise<void>;

  constructor(
    private readonly ledger: QuotaLedger,
    readonly userId: number,
    readonly tokenId: number,
    /** Keys the durable reservation (the relay's request id); without it the reservation lives in memory only. */
    readonly requestId?: string,
  ) {}

  /**
   * Takes `amount` from the user and the token, or refuses with new-api's 403 codes. With a request id
   * the reservation is recorded even for 0 (a settle may still charge), and a balance in debt is refused.
   */
  reserve(amount: number): Promise<void> {
    if (this.state !== 'open' || this.pending) return Promise.reject(new Error('quota already reserved for this request'));
    this.pending = this.take(amount);
    return this.pending;
  }

  private async take(amount: number): Promise<void> {
    if (amount > 0 || this.requestId !== undefined) {
      const outcome = await this.ledger.reserve(this.userId, this.tokenId, amount, this.requestId);
      if (outcome === 'user_quota') throw new RelayError('insufficient user quota', 403, 'insufficient_user_quota');
      if (outcome === 'token_quota')
        throw new RelayError('insufficient token quota (pre-consume failed)', 403, 'pre_consume_token_quota_failed');
    }
    this.reserved = amount;
    this.state = 'reserved';
  }

  /** Charges the real price in full (see docs/billing.md); undefined when already settled or refunded. */
  async settle(actual: number): Promise<SettleOutcome | undefined> {
    await this.reserveDone();
    if (this.state !== 'reserved') return undefined;
    this.state = 'settled';
    return this.ledger.settle(this.userId, this.tokenId, this.reserved, Math.max(0, Math.round(actual)), this.requestId);
  }

  /** Gives the reservation back (no upstream success). */
  async refund(): Promise<void> {
    await this.reserveDone();
    if (this.state !== 'reserved') return;
    this.state = 'refunded';
    if (this.reserved > 0 || this.requestId !== undefined)
      await this.ledger.release(this.userId, this.tokenId, this.reserved, this.requestId);
  }

  /** A reserve still running must land first: refunding before it commits would leave its row open. */
  private async reserveDone(): Promise<void> {
    if (this.pending) await this.pending.catch(() => undefined);
  }
}
