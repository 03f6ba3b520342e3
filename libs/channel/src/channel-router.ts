import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, cancelScheduled, RedisService, scheduleEvery, type AppConfig } from '@gw/core';
import { ChannelStatus } from './channel.entity.js';
import { ChannelRepository } from './channel.repository.js';
import { toRelayChannel, type RelayChannel } from './relay-channel.js';

const CHANGE_CHANNEL = 'channels:changed';

/** One priority tier of one group × model: channels with the same priority. */
interface Tier {
  priority: number;
  channels: RelayChannel[];
}

/** The routing table: group → model → tiers (priority desc), enabled channels only. */
export interface RoutingTable {
  byId: Map<number, RelayChannel>;
  index: Map<string, Map<string, Tier[]>>;
}

export function buildRoutingTable(channels: RelayChannel[]): RoutingTable {
  const byId = new Map(channels.map((c) => [c.id, c]));
  const index = new Map<string, Map<string, Tier[]>>();
  for (const channel of channels) {
    if (channel.status !== ChannelStatus.Enabled) continue;
    for (const group of channel.groups) {
      let models = index.get(group);
      if (!models) {
        models = new Map();
        index.set(group, models);
      }
      for (const model of channel.models) {
        let tiers = models.get(model);
        if (!tiers) {
          tiers = [];
          models.set(model, tiers);
        }
        let tier = tiers.find((t) => t.priority === channel.priority);
        if (!tier) {
          tier = { priority: channel.priority, channels: [] };
          tiers.push(tier);
        }
        tier.channels.push(channel);
      }
    }
  }
  for (const models of index.values()) for (const tiers of models.values()) tiers.sort((a, b) => b.priority - a.priority);
  return { byId, index };
}

/** Weighted random among candidates; when every weight is 0 each counts 1. */
export function weightedPick<T extends { weight: number }>(candidates: T[], random: () => number = Math.random): T | undefined {
  if (candidates.length === 0) return undefined;
  let total = 0;
  for (const candidate of candidates) total += Math.max(0, candidate.weight);
  if (total <= 0) return candidates[Math.floor(random() * candidates.length)];
  let roll = random() * total;
  for (const candidate of candidates) {
    roll -= Math.max(0, candidate.weight);
    if (roll < 0) return candidate;
  }
  return candidates.filter((c) => c.weight > 0).at(-1);
}

/**
 * Picks a channel from tiers: the tier at index `tier` (clamped to the lowest); when every channel
 * of it is excluded, the next lower tiers, then the higher ones. Excluded ids are never returned.
 */
export function pickFromTiers(
  tiers: Tier[],
  exclude: ReadonlySet<number>,
  tier = 0,
  random: () => number = Math.random,
): RelayChannel | undefined {
  const count = tiers.length;
  if (count === 0) return undefined;
  const start = Math.min(Math.max(0, Math.floor(tier) || 0), count - 1);
  // Tiers start, start+1, …, last, then start−1 back up to 0; walked by index, as this runs on every request.
  for (let step = 0; step < count; step++) {
    const i = step < count - start ? start + step : count - 1 - step;
    const channels = tiers[i]!.channels;
    const picked = weightedPick(exclude.size === 0 ? channels : channels.filter((c) => !exclude.has(c.id)), random);
    if (picked) return picked;
  }
  return undefined;
}

const NONE: ReadonlySet<number> = new Set();

/**
 * The in-memory routing table the relay reads with no database access. Rebuilt after every channel
 * write on this instance, on a Redis message from another instance, and every SYNC_FREQUENCY seconds.
 */
@Injectable()
export class ChannelRouter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ChannelRouter');
  private readonly instanceId = randomUUID();
  private table: RoutingTable = { byId: new Map(), index: new Map() };
  private reloading?: Promise<void>;
  private pendingReload = false;

  constructor(
    private readonly channels: ChannelRepository,
    private readonly redis: RedisService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.reload();
    const ms = this.config.sync.frequencySeconds * 1000;
    scheduleEvery(
      this.scheduler,
      'channel-sync',
      ms,
      () => this.reload(),
      (e) => this.logger.warn(e.message),
    );
    this.redis.subscribe(CHANGE_CHANNEL, (message) => {
      if (message !== this.instanceId) void this.reload().catch((e: Error) => this.logger.warn(e.message));
    });
    this.redis.onResubscribed(() => void this.reload().catch((e: Error) => this.logger.warn(e.message)));
  }

  onModuleDestroy(): void {
    cancelScheduled(this.scheduler, 'channel-sync');
  }

  pick(group: string, model: string, exclude: ReadonlySet<number> = NONE, tier = 0): RelayChannel | undefined {
    const tiers = this.table.index.get(group)?.get(model);
    return tiers ? pickFromTiers(tiers, exclude, tier) : undefined;
  }

  /** True when the channel is enabled and routed for the model in the group (new-api's IsChannelEnabledForGroupModel). */
  serves(group: string, model: string, channelId: number): boolean {
    const tiers = this.table.index.get(group)?.get(model);
    return tiers?.some((tier) => tier.channels.some((c) => c.id === channelId)) ?? false;
  }

  /** Any channel by id (whatever its status; the caller checks `status`). */
  get(id: number): RelayChannel | undefined {
    return this.table.byId.get(id);
  }

  /** Models with at least one enabled channel in any of the groups, sorted. */
  modelsForGroups(groups: string[]): string[] {
    const models = new Set<string>();
    for (const group of groups) for (const model of this.table.index.get(group)?.keys() ?? []) models.add(model);
    return [...models].sort();
  }

  /** Groups that have an enabled channel for the model, sorted. */
  groupsForModel(model: string): string[] {
    return [...this.table.index]
      .filter(([, models]) => models.has(model))
      .map(([group]) => group)
      .sort();
  }

  /** The types of the enabled channels serving the model in any group (its endpoint types, new-api's pricing cache). */
  channelTypesForModel(model: string): Set<number> {
    const types = new Set<number>();
    for (const byModel of this.table.index.values())
      for (const tier of byModel.get(model) ?? []) for (const channel of tier.channels) types.add(channel.type);
    return types;
  }

  /** Every enabled model (any group), sorted. */
  enabledModels(): string[] {
    const models = new Set<string>();
    for (const byModel of this.table.index.values()) for (const model of byModel.keys()) models.add(model);
    return [...models].sort();
  }

  all(): RelayChannel[] {
    return [...this.table.byId.values()];
  }

  /** Rebuilds from the database; concurrent calls coalesce into at most one extra reload. */
  async reload(): Promise<void> {
    if (this.reloading) {
      this.pendingReload = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      try {
        do {
          this.pendingReload = false;
          const rows = await this.channels.findAllForRouting();
          this.table = buildRoutingTable(rows.map(toRelayChannel));
        } while (this.pendingReload);
      } finally {
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }

  /** After a write: rebuild here at once, then tell the other instances. */
  async changed(): Promise<void> {
    await this.reload();
    await this.redis.publish(CHANGE_CHANNEL, this.instanceId).catch((e: Error) => this.logger.warn(e.message));
  }
}
