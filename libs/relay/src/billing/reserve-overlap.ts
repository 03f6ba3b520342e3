import { Injectable } from '@nestjs/common';

/**
 * The reservations must cover this many times what is reserved on this instance for the same user (and
 * token) before a reserve may run beside the upstream call. The in-memory balances lag behind other
 * instances' spending (up to SYNC_FREQUENCY) and never see a reserve before its settle, so "covers" alone
 * would overlap right at the edge; a margin keeps the overlapped requests to callers who are clearly rich.
 */
export const OVERLAP_MARGIN = 4;
/** After a refused reserve, that user's (and token's) requests reserve first for this long. */
export const REFUSAL_COOLDOWN_MS = 60_000;

/** Cooldown entries kept before the expired ones are swept. */
const MAX_COOLING = 10_000;

/** What the relay's in-memory view says the caller has (the token's is Infinity when unlimited or absent). */
export interface BalanceView {
  user: number;
  token: number;
}

/** One request's place in the instance's reservations; `leave` once the request has settled or refunded. */
export interface OverlapTicket {
  /** true: the reserve may run beside the upstream call (the answer is still held until it commits). */
  readonly overlap: boolean;
  leave(): void;
}

/**
 * Decides, per request, whether its reserve may overlap the upstream call (docs/billing.md, "Reserve beside
 * the upstream call"). Money never depends on this choice: an overlapped request's answer is held until its
 * reserve has committed, and a refused reserve cancels the upstream call. The rule only bounds how often an
 * upstream call is started for a request the database then refuses: it overlaps only when the in-memory
 * balances cover OVERLAP_MARGIN times everything this instance has reserved or is reserving for the same
 * user and token (this request included), and not for a while after a refusal of that user or token.
 */
@Injectable()
export class ReserveOverlap {
  private readonly userAmounts = new Map<number, number>();
  private readonly tokenAmounts = new Map<number, number>();
  private readonly refusedUntil = new Map<string, number>();

  enter(userId: number, tokenId: number, amount: number, view: BalanceView | undefined): OverlapTicket {
    const userTotal = add(this.userAmounts, userId, amount);
    const tokenTotal = tokenId > 0 ? add(this.tokenAmounts, tokenId, amount) : 0;
    const overlap =
      view !== undefined &&
      covers(view.user, userTotal) &&
      (tokenId <= 0 || covers(view.token, tokenTotal)) &&
      !this.cooling(`u${userId}`) &&
      (tokenId <= 0 || !this.cooling(`t${tokenId}`));
    let left = false;
    return {
      overlap,
      leave: () => {
        if (left) return;
        left = true;
        add(this.userAmounts, userId, -amount);
        if (tokenId > 0) add(this.tokenAmounts, tokenId, -amount);
      },
    };
  }

  /** A reserve of this user or token was refused: its view is wrong, reserve first for a while. */
  refused(userId: number, tokenId: number, now = Date.now()): void {
    // Entries are dropped when read after they expire; callers refused once and never seen again are
    // swept here, so the map stays as small as the set of recently refused callers.
    if (this.refusedUntil.size >= MAX_COOLING)
      for (const [key, until] of this.refusedUntil) if (until <= now) this.refusedUntil.delete(key);
    this.refusedUntil.set(`u${userId}`, now + REFUSAL_COOLDOWN_MS);
    if (tokenId > 0) this.refusedUntil.set(`t${tokenId}`, now + REFUSAL_COOLDOWN_MS);
  }

  private cooling(key: string): boolean {
    const until = this.refusedUntil.get(key);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.refusedUntil.delete(key);
    return false;
  }
}

function covers(balance: number, reserved: number): boolean {
  return balance > 0 && balance >= OVERLAP_MARGIN * reserved;
}

/** Adds to a running sum, dropping the entry at 0 so the maps hold only requests in flight. */
function add(sums: Map<number, number>, id: number, amount: number): number {
  const total = (sums.get(id) ?? 0) + amount;
  if (total === 0) sums.delete(id);
  else sums.set(id, total);
  return total;
}
