import { BadRequestException, Injectable, Logger } from '@nestjs/common';
import type { AffinityCacheStats, AffinityUsageStats } from '@gw/contracts';
import { OptionService } from '@gw/option';
import type { FormatId } from '../providers/types.js';
import type { Usage } from '../stream/usage.js';
import { type AffinityCaller, affinityContextOf, type AffinityMatch, type AffinityRequest, matchAffinity } from './affinity-match.js';
import { AffinityStore, emptyCounters } from './affinity-store.js';

/** How a client format counts cached tokens: inside the prompt (OpenAI) or beside it (Anthropic). */
function cachedTokenRateMode(format: FormatId): string {
  if (format === 'openai') return 'cached_over_prompt';
  if (format === 'anthropic') return 'cached_over_prompt_plus_cached';
  return '';
}

const usageKey = (rule: string, group: string, fingerprint: string) => `${rule}\n${group}\n${fingerprint}`;

/**
 * new-api's channel affinity (channel_affinity_setting): a request a rule matches goes first to the channel that
 * last served the same key, if that channel is still enabled for the group and model; the pin is written after a
 * success and lives ttl_seconds. Lookups and writes never fail a request: a store error is logged and ignored.
 */
@Injectable()
export class ChannelAffinity {
  private readonly logger = new Logger('ChannelAffinity');

  constructor(
    private readonly options: OptionService,
    private readonly store: AffinityStore,
  ) {}

  get enabled(): boolean {
    return this.options.get('channel_affinity_setting.enabled');
  }

  /** The rule that applies to the request and its key, or undefined (affinity off, no rule, no value). */
  match(request: Omit<AffinityRequest, 'context'>, caller: AffinityCaller): AffinityMatch | undefined {
    if (!this.enabled) return undefined;
    return matchAffinity(
      this.options.get('channel_affinity_setting.rules'),
      this.options.get('channel_affinity_setting.default_ttl_seconds'),
      { ...request, context: affinityContextOf(caller) },
    );
  }

  /** The channel the key is pinned to, if any. */
  async pinned(match: AffinityMatch): Promise<number | undefined> {
    try {
      return await this.store.pin(match.cacheKey);
    } catch (error) {
      this.logger.warn(`lookup of an affinity pin failed: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** Forgets a pin whose channel can no longer serve the request (disabled, or no longer in the group or model). */
  forget(match: AffinityMatch): void {
    this.store.dropPin(match.cacheKey).catch((error: Error) => this.logger.warn(`dropping an affinity pin failed: ${error.message}`));
  }

  /**
   * Pins the key to the channel that served it: the one that answered (switch_on_success, the default) or the
   * one first chosen.
   */
  record(match: AffinityMatch, firstChannelId: number, servedChannelId: number): void {
    const channelId = this.options.get('channel_affinity_setting.switch_on_success') ? servedChannelId : firstChannelId;
    this.store.resize(this.options.get('channel_affinity_setting.max_entries'));
    this.store
      .setPin(match.cacheKey, channelId, match.ttlSeconds)
      .catch((error: Error) => this.logger.warn(`writing an affinity pin failed: ${error.message}`));
  }

  /** Adds a settled request's tokens to its key's usage counters (the console's cache hit view). */
  observe(match: AffinityMatch, usage: Usage, format: FormatId): void {
    const sample = {
      mode: cachedTokenRateMode(format),
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      cachedTokens: usage.cachedTokens,
    };
    this.store
      .addUsage(usageKey(match.rule.name.trim(), match.usingGroup, match.fingerprint), sample, match.ttlSeconds)
      .catch((error: Error) => this.logger.warn(`counting affinity usage failed: ${error.message}`));
  }

  /** The pins by rule (rules with include_rule_name; the others' pins count as unknown). */
  async cacheStats(): Promise<AffinityCacheStats> {
    const named = new Set(
      this.options
        .get('channel_affinity_setting.rules')
        .filter((r) => r.include_rule_name && r.name.trim())
        .map((r) => r.name.trim()),
    );
    const byRule: Record<string, number> = Object.fromEntries([...named].map((name) => [name, 0]));
    const keys = await this.store.pinKeys();
    let unknown = 0;
    for (const key of keys) {
      const rule = key.slice(0, key.indexOf(':'));
      if (key.includes(':') && named.has(rule)) byRule[rule]!++;
      else unknown++;
    }
    return {
      enabled: this.enabled,
      total: keys.length,
      unknown,
      by_rule_name: byRule,
      cache_capacity: this.options.get('channel_affinity_setting.max_entries'),
      cache_algo: 'lru',
      backend: this.store.backend,
    };
  }

  /** Clears every pin, or one rule's (which must exist and include its name in its keys). */
  async clear(all: boolean, ruleName: string): Promise<number> {
    if (all) return this.store.dropPins();
    const name = ruleName.trim();
    if (!name) throw new BadRequestException('rule_name is required, or all=true to clear every pin');
    const rule = this.options.get('channel_affinity_setting.rules').find((r) => r.name.trim() === name);
    if (!rule) throw new BadRequestException(`no rule is named "${name}"`);
    if (!rule.include_rule_name)
      throw new BadRequestException(
        `rule "${name}" does not put its name in its keys (include_rule_name), so its pins cannot be told apart`,
      );
    return this.store.dropPins(`${name}:`);
  }

  async usageStats(ruleName: string, usingGroup: string, fingerprint: string): Promise<AffinityUsageStats> {
    const rule = ruleName.trim();
    const group = usingGroup.trim();
    const keyFp = fingerprint.trim();
    if (!rule) throw new BadRequestException('missing param: rule_name');
    if (!keyFp) throw new BadRequestException('missing param: key_fp');
    const counters = await this.store.usageOf(usageKey(rule, group, keyFp));
    return {
      rule_name: rule,
      using_group: group,
      key_fp: keyFp,
      ...(counters ?? emptyCounters()),
    };
  }
}
