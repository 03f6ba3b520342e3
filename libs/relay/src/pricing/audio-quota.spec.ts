import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OptionKey } from '@gw/option';
import { optionsStub } from '../../../../test/support/options-stub.js';
import type { AudioRatios, AudioUsage } from './billing-formulas.js';
import { PricingService } from './pricing.service.js';

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
