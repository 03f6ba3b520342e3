import type { RelayChannel } from '@gw/channel';
import { BillingSession } from '../billing/billing-session.js';
import type { QuotaLedger } from '../billing/quota-ledger.js';
import type { RelayCharges } from '../billing/relay-charges.js';
import { buildConsumeLog } from '../log/consume-log.js';
import type { PriceInfo, RelayCaller, RelayPricing } from '../pipeline/ports.js';
import { type RelayError, toRelayError } from '../pipeline/relay-error.js';
import { type AudioRatios, type AudioUsage, isFree } from '../pricing/billing-formulas.js';
import { RealtimeLocalCount } from './realtime-local-count.js';
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
 * had any usage, as new-api does.
 *
 * A response the provider gives no usage for (the session ends before its `response.done`, or the event has no
 * usage) is billed at what the gateway counted of it as the frames passed (RealtimeLocalCount), as new-api bills
 * its local usage; the row says so (`admin_info.local_count_tokens`). A `response.done` with usage replaces that
 * count, so nothing is charged twice. What is still reserved when the session ends with nothing counted is given
 * back.
 */
export class RealtimeMeter {
  private unit?: BillingSession;
  private units = 0;
  private unitStartedAt = 0;
  /** Milliseconds from the current unit's start to the first upstream frame after it (the log's frt). */
  private unitFirstFrameMs = -1;
  /** Price mode: the usage of the whole session, charged at its end. */
  private sessionUsage: AudioUsage = NO_USAGE;
  /** Price mode: part of the session's usage was counted locally. */
  private sessionLocalCount = false;
  private served?: ServedBy;
  /** The billing steps, one after another (a response's settle before the next reservation). */
  private chain: Promise<unknown> = Promise.resolve();
  private finished = false;
  private readonly local: RealtimeLocalCount;

  constructor(
    private readonly services: MeterServices,
    private readonly session: MeteredSession,
  ) {
    // new-api counts with the provider's name for the model.
    this.local = new RealtimeLocalCount((text) => services.pricing.countTextTokens(this.served?.upstreamModel ?? session.model, text));
  }

  /** The first reservation, before the upstream is called: throws new-api's 403 when it is refused. */
  open(): Promise<void> {
    return this.reserveNext();
  }

  servedBy(by: ServedBy): void {
    this.served = by;
    this.session.group = by.group;
    this.session.price = by.price;
  }

  /** A text frame the client sent, as it goes to the provider. */
  clientFrame(frame: Buffer): void {
    this.local.client(frame);
  }

  /**
   * Every upstream frame as it goes to the client (`text` for a text frame): counted, and the first one after a
   * unit's start is its first response time.
   */
  upstreamFrame(text?: Buffer): void {
    if (this.unitFirstFrameMs < 0 && this.unit) this.unitFirstFrameMs = Math.round(performance.now() - this.unitStartedAt);
    if (text) this.local.upstream(text);
  }

  /**
   * Bills one `response.done`: at the provider's usage, or at the local count when it reported none. The local
   * count ends here either way (frames that follow belong to the next response). Resolves with the error that
   * must end the session (the next reservation was refused, or could not be taken), else undefined.
   */
  responseDone(reported: AudioUsage | undefined): Promise<RelayError | undefined> {
    const counted = reported ? undefined : this.local.take();
    if (reported) this.local.reset();
    const usage = reported ?? counted;
    const step = this.chain.then(() => (usage ? this.bill(usage, !reported) : undefined));
    this.chain = step.catch(() => undefined);
    return step;
  }

  /** The session is over: settles a fixed-price session, gives back what is still reserved. Runs once. */
  finish(): Promise<void> {
    const step = this.chain.then(() => this.close());
    this.chain = step.catch(() => undefined);
    return step;
  }

  private async bill(usage: AudioUsage, localCount: boolean): Promise<RelayError | undefined> {
    if (this.finished || !this.unit || usage.inputTokens + usage.outputTokens === 0) return undefined;
    if (this.session.price.usePrice) {
      this.sessionUsage = addUsage(this.sessionUsage, usage);
      this.sessionLocalCount ||= localCount;
      return undefined;
    }
    const unit = this.unit;
    this.unit = undefined;
    await this.settle(unit, usage, localCount);
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
    // The session ended before the provider reported the running response (or the input sent since the last one).
    const counted = this.local.take();
    if (!unit) return;
    if (this.session.price.usePrice) {
      const usage = counted ? addUsage(this.sessionUsage, counted) : this.sessionUsage;
      if (usage.inputTokens + usage.outputTokens > 0) await this.settle(unit, usage, this.sessionLocalCount || counted !== undefined);
      else await unit.refund();
    } else if (counted) {
      await this.settle(unit, counted, true);
    } else {
      await unit.refund();
    }
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

  private settle(unit: BillingSession, usage: AudioUsage, localCount: boolean): Promise<number> {
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
          localCount,
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
