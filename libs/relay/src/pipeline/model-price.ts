import type { IncomingHttpHeaders } from 'node:http';
import type { ExprRequest } from '@gw/contracts';
import type { OptionService } from '@gw/option';
import { getPath, type Json } from './param-override/json-path.js';
import { UNSET_MODEL_RATIO } from '../pricing/index.js';
import type { PriceInfo, RelayCaller, RelayPricing } from './ports.js';
import { RelayError } from './relay-error.js';

/**
 * The price of a model for a caller in a group, or new-api's 400 model_price_error; a model with no price or
 * ratio is billed at the 37.5 sentinel ratio in self-use mode and for users who accept unset models.
 */
export function modelPrice(
  pricing: RelayPricing,
  options: OptionService,
  who: RelayCaller,
  model: string,
  group: string,
  request?: ExprRequest,
): PriceInfo {
  const info = pricing.resolve(model, group, who.userGroup, request);
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

/**
 * What a billing expression reads of a relay request: body paths (gjson syntax, as param overrides), headers, and
 * for an image request the pictures asked for.
 */
export function expressionRequest(body: unknown, headers: IncomingHttpHeaders, imageCount?: number): ExprRequest {
  return {
    imageCount,
    param: (path) => {
      try {
        const found = getPath(body as Json, path);
        return found.found ? found.value : null;
      } catch {
        return null;
      }
    },
    header: (name) => {
      const value = Object.hasOwn(headers, name) ? headers[name] : undefined;
      return Array.isArray(value) ? value.join(', ') : (value ?? '');
    },
  };
}
