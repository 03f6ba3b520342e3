export { RelayModule } from './relay.module.js';
// For the task module: asynchronous jobs bill through the same ledger and prices as the relay.
export { QuotaLedger } from './billing/quota-ledger.js';
export { releasePlan, type LedgerStep, type Plan, type PlanResult, type StepResult } from './billing/ledger-plans.js';
export { PricingService } from './pricing/pricing.service.js';
export { applyWindow, MODEL_WINDOW_OP, SlidingWindowLog } from './rate-limit/index.js';
