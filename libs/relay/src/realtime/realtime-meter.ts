import type { RelayChannel } from '@gw/channel';
import { BillingSession } from '../billing/billing-session.js';
import type { QuotaLedger } from '../billing/quota-ledger.js';
import type { RelayCharges } from '../billing/relay-charges.js';
import { buildConsumeLog } from '../log/consume-log.js';
import type { PriceInfo, RelayCaller, RelayPricing } from '../pipeline/ports.js';
import { type RelayError, toRelayError } from '../pipeline/relay-error.js';
import { type AudioRatios, type AudioUsage, isFree } from '../pricing/billing-formulas.js';
import { addUsage, NO_USAGE } from './realtime-usage.js';

/** What the log says a Realtime call came through. */
export const REALTIME_PATH = '/v1/realtime';

/** The session a meter bills: who, for which model and at what price (fixed when the session opened). */
export interface MeteredSession {
  who: RelayCaller;
  model: string;
  group: string;
  price: PriceInfo;
  ratios: AudioRatios;
  /** The session's request id: its first response's reservation and log row; later ones add `-2`, `-3`, ... */
  requestId: string;
  ip: string;
}

/** The channel the session was connected to, and the group it is billed in there (an `auto` retry may move it). */
export interface ServedBy {
  channel: RelayChannel;
  usedChannels: number[];
  upstreamModel: string;
  group: string;
  price: PriceInfo;
}

export interface MeterServices {
  ledger: QuotaLedger;
  charges: RelayCharges;
  pricing: RelayPricing;
}

/**
 * The money of one Realtime session, with the HTTP relay's reservations and settles (RelayCharges). In ratio
 * mode each response is billed on its own, like a request: a reservation of new-api's pre-consume estimate is
 * open before the response starts (the first one before the upstream is even called), its `response.done`
 * usage settles it (text and audio priced apart, one consume row), and the next response's reservation is
 * taken at once; when that is refused the session must end (new-api stops the session when quota runs out at
 * a `response.done`). In price mode the fixed price is reserved once and charged once for the session when it
 * had any usage, as new-api does. Whatever is still reserved when the session ends is given back.
 */
export class RealtimeMeter {
  private unit?: BillingSession;
  private units = 0;
  private unitStartedAt = 0;
  /** Milliseconds from the current unit's start to the first upstream frame after it (the log's frt). */
  private unitFirstFrameMs = -1;
  /** Price mode: the usage of the whole session, charged at its end. */
  private sessionUsage: AudioUsage = NO_USAGE;
  private served?: ServedBy;
  /** The billing steps, one after another (a response's settle before the next reservation). */
  private chain: Promise<unknown> = Promise.resolve();
  private finished = false;

  constructor(
    private readonly services: MeterServices,
    private readonly session: MeteredSession,
  ) {}

  /** The first reservation, before the upstream is called: throws new-api's 403 when it is refused. */
  open(): Promise<void> {
    return this.reserveNext();
  }

  servedBy(by: ServedBy): void {
    this.served = by;
    this.session.group = by.group;
    this.session.price = by.price;
  }

  /** Every upstream frame: the first one after a unit's start is its first response time. */
  upstreamFrame(): void {
    if (this.unitFirstFrameMs < 0 && this.unit) this.unitFirstFrameMs = Math.round(performance.now() - this.unitStartedAt);
  }

  /**
   * Bills one `response.done`. Resolves with the error that must end the session (the next reservation was
   * refused, or could not be taken), else undefined.
   */
  responseDone(usage: AudioUsage): Promise<RelayError | undefined> {
    const step = this.chain.then(() => this.bill(usage));
    this.chain = step.catch(() => undefined);
    return step;
  }

  /** The session is over: settles a fixed-price session, gives back what is still reserved. Runs once. */
  finish(): Promise<void> {
    const step = this.chain.then(() => this.close());
    this.chain = step.catch(() => undefined);
    return step;
  }

  private async bill(usage: AudioUsage): Promise<RelayError | undefined> {
    if (this.finished || !this.unit) return undefined;
    if (this.session.price.usePrice) {
      this.sessionUsage = addUsage(this.sessionUsage, usage);
      return undefined;
    }
    const unit = this.unit;
    this.unit = undefined;
    await this.settle(unit, usage);
    try {
      await this.reserveNext();
      return undefined;
    } catch (error) {
      return toRelayError(error);
    }
  }

  private async close(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    const unit = this.unit;
    this.unit = undefined;
    if (!unit) return;
    const usage = this.sessionUsage;
    if (this.session.price.usePrice && usage.inputTokens + usage.outputTokens > 0) await this.settle(unit, usage);
    else await unit.refund();
  }

  private async reserveNext(): Promise<void> {
    const { ledger, charges, pricing } = this.services;
    const { who, price, requestId } = this.session;
    this.units++;
    const unit = new BillingSession(ledger, who.userId, who.tokenId, this.units === 1 ? requestId : `${requestId}-${this.units}`);
    const estimate = pricing.preConsumeQuota(price, 0, 0);
    // A priced call reserves at least 1, so a balance of 0 or in debt is refused (docs/billing.md).
    await charges.reserve(unit, who, isFree(price) ? estimate : Math.max(1, estimate));
    this.unit = unit;
    this.unitStartedAt = performance.now();
    this.unitFirstFrameMs = -1;
  }

  private settle(unit: BillingSession, usage: AudioUsage): Promise<number> {
    const { charges, pricing } = this.services;
    const { who, price, ratios, model, group, ip } = this.session;
    const served = this.served;
    if (!served) return unit.refund().then(() => 0);
    const quota = pricing.audioQuota(price, usage, ratios);
    const useTimeMs = performance.now() - this.unitStartedAt;
    return charges.settle(unit, who, served.channel.id, quota, (outcome) =>
      buildConsumeLog({
        caller: who,
        request: { model, stream: true, path: REALTIME_PATH, body: {} },
        group,
        price,
        forward: {
          channel: served.channel,
          usedChannels: served.usedChannels,
          upstreamModel: served.upstreamModel,
          localCount: false,
          frtMs: Math.max(0, this.unitFirstFrameMs),
        },
        usage: { promptTokens: usage.inputTokens, completionTokens: usage.outputTokens, cachedTokens: usage.cachedTokens },
        quota: outcome.charged,
        shortfall: outcome.shortfall,
        requestId: unit.requestId ?? this.session.requestId,
        ip,
        useTimeMs,
        extra: {
          ws: true,
          audio_input: usage.inputAudioTokens,
          audio_output: usage.outputAudioTokens,
          text_input: usage.inputTokens - usage.inputAudioTokens,
          text_output: usage.outputTokens - usage.outputAudioTokens,
          audio_ratio: ratios.audio,
          audio_completion_ratio: ratios.audioCompletion,
        },
      }),
    );
  }
}
