import { Injectable } from '@nestjs/common';
import { BillingExprError, type BillingProgram, compileBillingExpr, type ExprRequest } from '@gw/contracts';
import { OptionService } from '@gw/option';
import { usableGroups } from '@gw/user';
import {
  audioQuota,
  perCallQuota,
  preConsumeQuota,
  settleQuota,
  UNSET_MODEL_RATIO,
  worstCaseQuota,
  type AudioRatios,
  type AudioUsage,
  type BillableUsage,
  type PriceInfo,
} from './billing-formulas.js';
import { RelayError } from '../pipeline/relay-error.js';
import { geminiAudioInputPrice } from './gemini-audio-price.js';
import { builtInCompletionRatio, lookupModel } from './model-names.js';
import { type ToolCharge, toolSurcharge } from './tool-prices.js';

/** new-api labels a user's own group this way when it is not among the usable groups. */
const USER_GROUP_DESCRIPTION = '用户分组';
/** new-api's cache-write ratio for models without their own (Anthropic charges 1.25× input for 5-minute writes). */
const DEFAULT_CREATE_CACHE_RATIO = 1.25;

/**
 * Prices from the ratio options (in memory; no database access on the relay path). The group ratio is the
 * using group's, unless GroupGroupRatio sets what the user's own group pays in it (new-api HandleGroupRatio).
 */
@Injectable()
export class PricingService {
  constructor(private readonly options: OptionService) {}

  /**
   * undefined when the model has neither a fixed price nor a model ratio. Given the request an expression reads, a
   * model billed by its expression (billing_setting) is priced by it; without (Realtime, tasks) by its ratio or price.
   */
  resolve(model: string, usingGroup: string, userGroup: string, request?: ExprRequest): PriceInfo | undefined {
    const info = this.resolvePrice(model, usingGroup, userGroup, request);
    if (!info) return undefined;
    if (this.minimumCharge(model)) info.minimumCharge = true;
    const audioPrice = geminiAudioInputPrice(model);
    if (audioPrice > 0 && !info.expr) info.audioInputPrice = audioPrice;
    return info;
  }

  /** billing_setting.minimum_charge: the model's charges below 10 quota are raised to 10. */
  minimumCharge(model: string): boolean {
    return lookupOwn(this.options.get('billing_setting.minimum_charge'), model) === true;
  }

  private resolvePrice(model: string, usingGroup: string, userGroup: string, request?: ExprRequest): PriceInfo | undefined {
    const program = request && this.billingExpr(model);
    if (program) {
      const expr = { program, request };
      return this.withGroupRatio(
        { usePrice: false, modelPrice: -1, modelRatio: 0, completionRatio: 0, cacheRatio: 0, groupRatio: 1, expr },
        usingGroup,
        userGroup,
      );
    }
    const price = lookupModel(this.options.get('ModelPrice'), model);
    if (price !== undefined) {
      const info: PriceInfo = { usePrice: true, modelPrice: price, modelRatio: 0, completionRatio: 0, cacheRatio: 0, groupRatio: 1 };
      return this.withGroupRatio(info, usingGroup, userGroup);
    }
    const modelRatio = lookupModel(this.options.get('ModelRatio'), model);
    return modelRatio === undefined ? undefined : this.withGroupRatio(this.ratioInfo(model, modelRatio, 1), usingGroup, userGroup);
  }

  /** For self-use mode and users who accept unpriced models: new-api bills those at ratio 37.5. */
  resolveOrUnset(model: string, usingGroup: string, userGroup: string): PriceInfo {
    return (
      this.resolve(model, usingGroup, userGroup) ?? this.withGroupRatio(this.ratioInfo(model, UNSET_MODEL_RATIO, 1), usingGroup, userGroup)
    );
  }

  /** Sets the group ratio on `info` and, when GroupGroupRatio's override applied, userGroupRatio (new-api HandleGroupRatio). */
  withGroupRatio(info: PriceInfo, usingGroup: string, userGroup: string): PriceInfo {
    const special = this.specialGroupRatio(usingGroup, userGroup);
    if (special === undefined) info.groupRatio = lookupOwn(this.options.get('GroupRatio'), usingGroup) ?? 1;
    else {
      info.groupRatio = special;
      info.userGroupRatio = special;
    }
    return info;
  }

  /** The model's billing expression when billing_setting.billing_mode says `tiered_expr` and it compiles. */
  billingExpr(model: string): BillingProgram | undefined {
    if (lookupOwn(this.options.get('billing_setting.billing_mode'), model) !== 'tiered_expr') return undefined;
    const source = lookupOwn(this.options.get('billing_setting.billing_expr'), model);
    if (typeof source !== 'string') return undefined;
    try {
      return compileBillingExpr(source);
    } catch {
      // Saved values were checked; one imported unchecked from another database prices nothing.
      return undefined;
    }
  }

  /** The estimate; a billing expression that cannot price the request is new-api's 400 model_price_error. */
  preConsumeQuota(info: PriceInfo, promptTokens: number, maxTokens: number): number {
    try {
      return preConsumeQuota(info, promptTokens, maxTokens, this.options.get('PreConsumedQuota'), this.options.get('QuotaPerUnit'));
    } catch (error) {
      if (!(error instanceof BillingExprError)) throw error;
      throw new RelayError(`the billing expression of this model cannot price the request: ${error.message}`, 400, 'model_price_error');
    }
  }

  /** What the relay reserves: new-api's estimate, raised to the worst case when max_tokens bounds the answer. */
  reserveQuota(info: PriceInfo, promptTokens: number, maxTokens: number): number {
    const estimate = this.preConsumeQuota(info, promptTokens, maxTokens);
    return Math.max(estimate, worstCaseQuota(info, promptTokens, maxTokens, this.options.get('PreConsumedQuota')));
  }

  /** The charge; `tools` are the answer's billed tool calls (toolCharges), added at their per-call prices. */
  settleQuota(info: PriceInfo, usage: BillableUsage, tools: readonly ToolCharge[] = []): number {
    const quotaPerUnit = this.options.get('QuotaPerUnit');
    return settleQuota(info, usage, quotaPerUnit, toolSurcharge(tools, quotaPerUnit, info.groupRatio));
  }

  perCallQuota(info: PriceInfo, factor: number): number {
    return perCallQuota(info, factor, this.options.get('QuotaPerUnit'));
  }

  /** AudioRatio and AudioCompletionRatio of the model (1 when unlisted, as new-api's GetAudioRatio). */
  audioRatios(model: string): AudioRatios {
    return {
      audio: lookupModel(this.options.get('AudioRatio'), model) ?? 1,
      audioCompletion: lookupModel(this.options.get('AudioCompletionRatio'), model) ?? 1,
    };
  }

  /** One Realtime response's charge (see audioQuota). */
  audioQuota(info: PriceInfo, usage: AudioUsage, ratios: AudioRatios): number {
    return audioQuota(info, usage, ratios, this.options.get('QuotaPerUnit'));
  }

  /** Group → description: UserUsableGroups changed by GroupSpecialUsableGroup, plus the user's own group (new-api GetUserUsableGroups). */
  usableGroups(userGroup: string): Record<string, string> {
    return usableGroups(this.options, userGroup, USER_GROUP_DESCRIPTION);
  }

  /** The ratio a user of `userGroup` pays in `usingGroup`: GroupGroupRatio's override, else GroupRatio's (1 when unset). */
  groupRatio(usingGroup: string, userGroup = ''): number {
    return this.specialGroupRatio(usingGroup, userGroup) ?? lookupOwn(this.options.get('GroupRatio'), usingGroup) ?? 1;
  }

  /** GroupGroupRatio[userGroup][usingGroup], when set. */
  specialGroupRatio(usingGroup: string, userGroup: string): number | undefined {
    const special = userGroup ? lookupOwn(this.options.get('GroupGroupRatio'), userGroup) : undefined;
    return special ? lookupOwn(special, usingGroup) : undefined;
  }

  completionRatio(model: string): number {
    return lookupModel(this.options.get('CompletionRatio'), model) ?? builtInCompletionRatio(model);
  }

  private ratioInfo(model: string, modelRatio: number, groupRatio: number): PriceInfo {
    return {
      usePrice: false,
      modelPrice: -1,
      modelRatio,
      completionRatio: this.completionRatio(model),
      cacheRatio: lookupModel(this.options.get('CacheRatio'), model) ?? 1,
      createCacheRatio: lookupModel(this.options.get('CreateCacheRatio'), model) ?? DEFAULT_CREATE_CACHE_RATIO,
      imageRatio: lookupModel(this.options.get('ImageRatio'), model) ?? 1,
      groupRatio,
    };
  }
}

function lookupOwn<T>(map: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}
