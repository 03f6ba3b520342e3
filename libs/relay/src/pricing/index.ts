export { preConsumeQuota, settleQuota, isFree, UNSET_MODEL_RATIO, type BillableUsage, type PriceInfo } from './billing-formulas.js';
export { matchingModelName, lookupModel, builtInCompletionRatio } from './model-names.js';
export { PricingService } from './pricing.service.js';
export { TokenCounter, encodingFor } from './token-counter.js';
export { RelayPricingAdapter } from './relay-pricing.adapter.js';
export { PricingCatalog, type PricingRow, type PricingPage } from './pricing-catalog.js';
export { PricingController } from './pricing.controller.js';
export { RatioConfigController } from './ratio-config.controller.js';
