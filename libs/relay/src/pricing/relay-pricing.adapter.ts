import type { ExprRequest } from '@gw/contracts';
import { Injectable } from '@nestjs/common';
import { RelayPricing, type PriceInfo } from '../pipeline/ports.js';
import type { AudioRatios, AudioUsage } from './billing-formulas.js';
import type { Usage } from '../stream/usage.js';
import { PricingService } from './pricing.service.js';
import { TokenCounter } from './token-counter.js';
import type { ToolCharge } from './tool-prices.js';

/** Binds the pipeline's pricing port to the option-backed prices and the local tokenizer. */
@Injectable()
export class RelayPricingAdapter extends RelayPricing {
  constructor(
    private readonly pricing: PricingService,
    private readonly tokens: TokenCounter,
  ) {
    super();
  }

  resolve(model: string, usingGroup: string, userGroup: string, request?: ExprRequest): PriceInfo | undefined {
    return this.pricing.resolve(model, usingGroup, userGroup, request);
  }

  preConsumeQuota(info: PriceInfo, promptTokens: number, maxTokens: number): number {
    return this.pricing.reserveQuota(info, promptTokens, maxTokens);
  }

  settleQuota(info: PriceInfo, usage: Usage, tools?: readonly ToolCharge[]): number {
    return this.pricing.settleQuota(info, usage, tools);
  }

  perCallQuota(info: PriceInfo, factor: number): number {
    return this.pricing.perCallQuota(info, factor);
  }

  audioRatios(model: string): AudioRatios {
    return this.pricing.audioRatios(model);
  }

  audioQuota(info: PriceInfo, usage: AudioUsage, ratios: AudioRatios): number {
    return this.pricing.audioQuota(info, usage, ratios);
  }

  usableGroups(userGroup: string): Record<string, string> {
    return this.pricing.usableGroups(userGroup);
  }

  countPromptTokens(model: string, body: unknown): number {
    return this.tokens.countPromptTokens(model, body);
  }

  countTextTokens(model: string, text: string): number {
    return this.tokens.countTextTokens(model, text);
  }

  groupRatio(usingGroup: string, userGroup: string): number {
    return this.pricing.groupRatio(usingGroup, userGroup);
  }

  specialGroupRatio(usingGroup: string, userGroup: string): number | undefined {
    return this.pricing.specialGroupRatio(usingGroup, userGroup);
  }
}
