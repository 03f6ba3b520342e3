export { RelayModule } from './relay.module.js';
// For the task module: asynchronous jobs bill through the same ledger and prices as the relay.
export { QuotaLedger } from './billing/quota-ledger.js';
export { releasePlan, type LedgerStep, type Plan, type PlanResult, type StepResult } from './billing/ledger-plans.js';
export { PricingService } from './pricing/pricing.service.js';
// For the suites generated from the route table (the relay's POST routes are served before Express's router).
export { relayRouteTemplates } from './http/relay-routes.js';
