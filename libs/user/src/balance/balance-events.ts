import { Injectable, Logger } from '@nestjs/common';

/** Whose balance moved: the user (users.quota/used_quota/request_count) and, when one moved too, the token. */
export interface BalanceChanged {
  userId: number;
  /** The token whose remain_quota/used_quota moved with the user's (absent or 0: none). */
  tokenId?: number;
}

type BalanceListener = (change: BalanceChanged) => void;

/**
 * The one hook every balance write calls after it commits (top-ups, redemptions, check-ins, admin
 * edits, the relay's and the tasks' charges), so caches of balances can drop or refresh an entry.
 * Listeners run synchronously and must be cheap: the relay calls this on every reserve and settle.
 */
@Injectable()
export class BalanceEvents {
  private readonly logger = new Logger('BalanceEvents');
  private readonly listeners = new Set<BalanceListener>();

  /** Subscribes; the returned function unsubscribes. */
  onBalanceChanged(listener: BalanceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(change: BalanceChanged): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.logger.warn(`balance-changed listener failed: ${(error as Error).message}`);
      }
    }
  }
}
