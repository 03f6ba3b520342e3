import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { APP_CONFIG, BusinessError, cancelScheduled, RedisService, scheduleEvery, type AppConfig } from '@gw/core';
import { OptionRepository } from './option.repository.js';
import { parseOptionValue } from './registry/option-parser.js';
import { isOptionKey, OPTION_REGISTRY, RATIO_KEYS, type OptionKey, type OptionValues } from './registry/option-registry.js';

const CHANGE_CHANNEL = 'gw:options:changed';

export interface OptionItem {
  key: string;
  value: string;
}

type ChangeListener = (keys: OptionKey[]) => void;

/**
 * Options live in memory, parsed once: the relay reads them on every request with no database
 * access. A write updates this instance at once and tells the others through Redis; every instance
 * also reloads the table each SYNC_FREQUENCY seconds, so they converge even without Redis.
 */
@Injectable()
export class OptionService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Options');
  private stored = new Map<string, string>();
  private parsed = new Map<OptionKey, unknown>();
  private readonly listeners = new Set<ChangeListener>();

  constructor(
    private readonly repository: OptionRepository,
    private readonly redis: RedisService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly scheduler: SchedulerRegistry,
  ) {
    this.applyStored(new Map());
  }

  async onModuleInit(): Promise<void> {
    await this.reload();
    const ms = this.config.sync.frequencySeconds * 1000;
    scheduleEvery(
      this.scheduler,
      'option-sync',
      ms,
      () => this.reload(),
      (e) => this.logger.warn(e.message),
    );
    this.redis.subscribe(CHANGE_CHANNEL, () => void this.reload().catch((e: Error) => this.logger.warn(e.message)));
    this.redis.onResubscribed(() => void this.reload().catch((e: Error) => this.logger.warn(e.message)));
  }

  onModuleDestroy(): void {
    cancelScheduled(this.scheduler, 'option-sync');
  }

  get<K extends OptionKey>(key: K): OptionValues[K] {
    return this.parsed.get(key) as OptionValues[K];
  }

  /** Called with the changed keys after every reload or write that changed something. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every non-secret option as `{key, value}` strings, defaults included (GET /api/option/). */
  list(): OptionItem[] {
    return (Object.keys(OPTION_REGISTRY) as OptionKey[])
      .filter((key) => !(OPTION_REGISTRY[key] as { secret?: boolean }).secret)
      .map((key) => ({ key, value: this.stored.get(key) ?? OPTION_REGISTRY[key].default }));
  }

  /** Validates and saves one option (PUT /api/option/). */
  async update(key: string, value: unknown): Promise<void> {
    await this.updateMany({ [key]: value });
  }

  async updateMany(values: Record<string, unknown>): Promise<void> {
    const checked = Object.entries(values).map(([key, value]) => {
      if (!isOptionKey(key)) throw new BusinessError(`unknown option: ${key}`);
      const text = toStoredString(value);
      const result = parseOptionValue(key, OPTION_REGISTRY[key], text);
      if (!result.ok) throw new BusinessError(result.message);
      return [key, text] as const;
    });
    for (const [key, text] of checked) await this.repository.save(key, text);
    const next = new Map(this.stored);
    for (const [key, text] of checked) next.set(key, text);
    this.applyStored(next);
    await this.redis.publish(CHANGE_CHANNEL, checked.map(([key]) => key).join(','));
  }

  /** Restores the built-in model ratio and price tables (POST /api/option/rest_model_ratio). */
  async resetRatios(): Promise<void> {
    await this.repository.deleteKeys([...RATIO_KEYS]);
    const next = new Map(this.stored);
    for (const key of RATIO_KEYS) next.delete(key);
    this.applyStored(next);
    await this.redis.publish(CHANGE_CHANNEL, RATIO_KEYS.join(','));
  }

  async reload(): Promise<void> {
    const rows = await this.repository.findAll();
    this.applyStored(new Map(rows.map((row) => [row.key, row.value ?? ''])));
  }

  private applyStored(next: Map<string, string>): void {
    const changed: OptionKey[] = [];
    for (const key of Object.keys(OPTION_REGISTRY) as OptionKey[]) {
      const def = OPTION_REGISTRY[key];
      const text = next.get(key) ?? def.default;
      if (this.parsed.has(key) && (this.stored.get(key) ?? def.default) === text) continue;
      let result = parseOptionValue(key, def, text);
      if (!result.ok) {
        // A row written by another tool (or an older version) that no longer validates: keep serving the default.
        this.logger.warn(`stored value of ${key} is invalid (${result.message}); using the default`);
        result = parseOptionValue(key, def, def.default);
      }
      if (result.ok) this.parsed.set(key, result.value);
      changed.push(key);
    }
    this.stored = next;
    if (changed.length) for (const listener of this.listeners) listener(changed);
  }
}

function toStoredString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}
