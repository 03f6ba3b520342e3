import type { OptionService } from '@gw/option';
import { UNSET_MODEL_RATIO } from '../pricing/index.js';
import type { PriceInfo, RelayCaller, RelayPricing } from './ports.js';
import { RelayError } from './relay-error.js';

/**
 * The price of a model for a caller in a group, or new-api's 400 model_price_error; a model with no price or
 * ratio is billed at the 37.5 sentinel ratio in self-use mode and for users who accept unset models.
 */
export function modelPrice(pricing: RelayPricing, options: OptionService, who: RelayCaller, model: string, group: string): PriceInfo {
  const info = pricing.resolve(model, group, who.userGroup);
  if (info) return info;
  if (!options.get('SelfUseModeEnabled') && !who.acceptUnsetModelRatioModel) {
    throw new RelayError(`model ${model} has no price or ratio set; ask the administrator to configure it`, 400, 'model_price_error');
  }
  const unset: PriceInfo = {
    usePrice: false,
    modelPrice: -1,
    modelRatio: UNSET_MODEL_RATIO,
    completionRatio: 1,
    cacheRatio: 1,
    groupRatio: pricing.groupRatio(group, who.userGroup),
  };
  const special = pricing.specialGroupRatio(group, who.userGroup);
  if (special !== undefined) unset.userGroupRatio = special;
  return unset;
}
