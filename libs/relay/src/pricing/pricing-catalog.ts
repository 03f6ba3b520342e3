import { Injectable } from '@nestjs/common';
import { ChannelRouter } from '@gw/channel';
import { ENDPOINT_ROUTES, endpointTypesOfModel, type EndpointType } from '@gw/contracts';
import { OptionService } from '@gw/option';
import { autoGroupsOf } from '@gw/user';
import { UNSET_MODEL_RATIO } from './billing-formulas.js';
import { lookupModel } from './model-names.js';
import { PricingService } from './pricing.service.js';

/** One row of GET /api/pricing (spec 001 "Pricing model row", new-api's Pricing). */
export interface PricingRow {
  model_name: string;
  /** 0 = per token (ratios), 1 = per call (fixed price). */
  quota_type: 0 | 1;
  model_ratio: number;
  model_price: number;
  completion_ratio: number;
  owner_by: string;
  enable_groups: string[];
  /** The APIs the model can be called through (new-api's endpoint types). */
  supported_endpoint_types: EndpointType[];
  /** Set when the model is billed by its expression (billing_setting), which it then shows (US$ per 1M tokens). */
  billing_mode?: 'tiered_expr';
  billing_expr?: string;
}

export interface PricingPage {
  data: PricingRow[];
  group_ratio: Record<string, number>;
  usable_group: Record<string, string>;
  /** The route of each endpoint type the listed models use. */
  supported_endpoint: Partial<Record<EndpointType, { path: string; method: string }>>;
  /** The groups an `auto` token of this user walks, in order (new-api GetUserAutoGroup). */
  auto_groups: string[];
}

/** The public price list: every model with an enabled channel, as the caller's groups see it. */
@Injectable()
export class PricingCatalog {
  constructor(
    private readonly router: ChannelRouter,
    private readonly options: OptionService,
    private readonly pricing: PricingService,
  ) {}

  /** `userGroup` is '' for guests, who see the default usable groups. */
  forGroup(userGroup: string): PricingPage {
    const usable = this.pricing.usableGroups(userGroup);
    const isUsable = (group: string) => Object.hasOwn(usable, group);
    const data = this.rows().filter((row) => row.enable_groups.some((group) => group === 'all' || isUsable(group)));
    // The caller's group-to-group overrides replace the ratios it would pay (new-api GetPricing).
    const groupRatio = Object.fromEntries(
      Object.keys(this.options.get('GroupRatio'))
        .filter(isUsable)
        .map((group) => [group, this.pricing.groupRatio(group, userGroup)]),
    );
    const endpoints = new Set(data.flatMap((row) => row.supported_endpoint_types));
    const supported = Object.fromEntries([...endpoints].map((type) => [type, ENDPOINT_ROUTES[type]]));
    return {
      data,
      group_ratio: groupRatio,
      usable_group: usable,
      supported_endpoint: supported,
      auto_groups: autoGroupsOf(this.options, userGroup),
    };
  }

  private rows(): PricingRow[] {
    const prices = this.options.get('ModelPrice');
    const ratios = this.options.get('ModelRatio');
    return this.router.enabledModels().map((model) => {
      const row = {
        model_name: model,
        owner_by: '',
        enable_groups: this.router.groupsForModel(model),
        supported_endpoint_types: endpointTypesOfModel(this.router.channelTypesForModel(model), model),
      };
      const expression = this.pricing.billingExpr(model);
      if (expression)
        return {
          ...row,
          quota_type: 0,
          model_price: 0,
          model_ratio: 0,
          completion_ratio: 0,
          billing_mode: 'tiered_expr',
          billing_expr: expression.source,
        };
      const price = lookupModel(prices, model);
      if (price !== undefined) return { ...row, quota_type: 1, model_price: price, model_ratio: 0, completion_ratio: 0 };
      // Unpriced models show new-api's sentinel ratio, as new-api does (its issue #7058).
      const ratio = lookupModel(ratios, model) ?? UNSET_MODEL_RATIO;
      return { ...row, quota_type: 0, model_price: 0, model_ratio: ratio, completion_ratio: this.pricing.completionRatio(model) };
    });
  }
}
