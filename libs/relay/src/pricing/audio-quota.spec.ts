import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPTION_REGISTRY, type OptionKey, type OptionService } from '@gw/option';
import type { AudioRatios, AudioUsage } from './billing-formulas.js';
import { PricingService } from './pricing.service.js';

/** An OptionService reading the given values, else each key's registry default. */
function optionsStub(values: Partial<Record<OptionKey, unknown>>): OptionService {
  return {
    get(key: OptionKey) {
      if (key in values) return values[key];
      const def = OPTION_REGISTRY[key];
      if (def.kind === 'json') return JSON.parse(def.default);
      if (def.kind === 'int' || def.kind === 'float') return Number(def.default);
      if (def.kind === 'bool') return def.default === 'true';
      return def.default;
    },
  } as unknown as OptionService;
}

interface AudioCase {
  name: string;
  options: Partial<Record<OptionKey, unknown>>;
  model: string;
  group: string;
  usage: AudioUsage;
  expected: { quota: number; preConsume: number; ratios: AudioRatios };
}

const dir = new URL('../../../../test/fixtures/billing-realtime/', import.meta.url);
const cases: AudioCase[] = readdirSync(dir)
  .filter((file) => file.endsWith('.json'))
  .flatMap((file) => JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as AudioCase[]);

describe('Realtime response charges, golden fixtures (test/fixtures/billing-realtime)', () => {
  it('has cases', () => expect(cases.length).toBeGreaterThan(5));

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const pricing = new PricingService(optionsStub(c.options));
    const info = pricing.resolve(c.model, c.group, c.group)!;
    const ratios = pricing.audioRatios(c.model);
    expect({ quota: pricing.audioQuota(info, c.usage, ratios), preConsume: pricing.preConsumeQuota(info, 0, 0), ratios }).toEqual(
      c.expected,
    );
  });
});
