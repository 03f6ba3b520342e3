import { Injectable, Logger } from '@nestjs/common';
import { OptionService } from '@gw/option';
import { ChannelKeyService } from './channel-key.service.js';
import { ChannelRouter } from './channel-router.js';
import { ChannelStatusService } from './channel-status.service.js';
import { redactKey } from './redact.js';

export interface RelayFailure {
  status?: number;
  message: string;
  /** A failure of the channel itself (new-api `channel:` errors, e.g. a key the provider rejects): always disabling. */
  channelError?: boolean;
}

/** "401,500-503" → a membership test. */
export function statusMatcher(spec: string): (status: number) => boolean {
  const ranges: [number, number][] = [];
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^(\d{3})(?:\s*-\s*(\d{3}))?$/.exec(part);
    if (match) ranges.push([Number(match[1]), Number(match[2] ?? match[1])]);
  }
  return (status) => ranges.some(([from, to]) => status >= from && status <= to);
}

export function keywordMatcher(text: string): (message: string) => boolean {
  const keywords = text
    .split('\n')
    .map((k) => k.trim().toLowerCase())
    .filter(Boolean);
  return (message) => {
    const lower = message.toLowerCase();
    return keywords.some((k) => lower.includes(k));
  };
}

/**
 * Auto-disable from relay outcomes (new-api ShouldDisableChannel), with one difference: a channel is
 * disabled only after ChannelDisableFailureCount disabling failures within
 * ChannelDisableFailureWindowMinutes, so one bad answer does not take a channel out.
 */
@Injectable()
export class ChannelHealthService {
  private readonly logger = new Logger('ChannelHealth');
  /** Recent disabling failures per channel (`12`) or, for multi-key channels, per key (`12:3`). */
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly options: OptionService,
    private readonly router: ChannelRouter,
    private readonly status: ChannelStatusService,
    private readonly keys: ChannelKeyService,
  ) {}

  /** Whether this failure is of a kind that disables a channel (status code list or keyword). */
  isDisablingFailure(failure: RelayFailure): boolean {
    if (failure.channelError) return true;
    if (failure.status !== undefined && statusMatcher(this.options.get('AutomaticDisableStatusCodes'))(failure.status)) return true;
    return keywordMatcher(this.options.get('AutomaticDisableKeywords'))(failure.message ?? '');
  }

  /** Whether auto-disable applies to this channel at all (global switch and the channel's auto_ban). */
  autoDisableApplies(channelId: number): boolean {
    if (!this.options.get('AutomaticDisableChannelEnabled')) return false;
    return this.router.get(channelId)?.autoBan ?? false;
  }

  /** `keyIndex`: which key of a multi-key channel failed; that key is disabled rather than the channel. */
  reportRelayFailure(channelId: number, failure: RelayFailure, keyIndex?: number): void {
    void this.recordFailure(channelId, failure, keyIndex).catch((e: Error) => this.logger.warn(`channel #${channelId}: ${e.message}`));
  }

  reportRelaySuccess(channelId: number, keyIndex?: number): void {
    // Called for every relayed answer; with no failure on record (the usual case) there is nothing to forget.
    if (this.failures.size === 0) return;
    this.failures.delete(this.bucket(channelId, keyIndex));
  }

  /** The awaitable form of reportRelayFailure; resolves true when the channel (or the key) was disabled. */
  async recordFailure(channelId: number, failure: RelayFailure, keyIndex?: number): Promise<boolean> {
    if (!this.autoDisableApplies(channelId) || !this.isDisablingFailure(failure)) return false;
    const bucket = this.bucket(channelId, keyIndex);
    const now = Date.now();
    const windowMs = this.options.get('ChannelDisableFailureWindowMinutes') * 60_000;
    const recent = (this.failures.get(bucket) ?? []).filter((t) => now - t < windowMs);
    recent.push(now);
    this.failures.set(bucket, recent);
    if (recent.length < this.options.get('ChannelDisableFailureCount')) return false;
    this.failures.delete(bucket);
    const message = redactKey(failure.message, this.router.get(channelId)?.key ?? '');
    const reason = failure.status ? `status ${failure.status}: ${message}` : message;
    if (bucket.includes(':')) return this.keys.disableKey(channelId, keyIndex!, reason);
    return this.status.autoDisable(channelId, reason);
  }

  private bucket(channelId: number, keyIndex: number | undefined): string {
    const multi = keyIndex !== undefined && this.router.get(channelId)?.info.is_multi_key;
    return multi ? `${channelId}:${keyIndex}` : String(channelId);
  }
}
