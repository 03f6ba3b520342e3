export { RelayModule } from './relay.module.js';
// For the task module: asynchronous jobs bill through the same ledger and prices as the relay.
export { QuotaLedger } from './billing/quota-ledger.js';
export { ReservationRecovery } from './billing/reservation-recovery.service.js';
export { PricingService } from './pricing/pricing.service.js';
export { withMinimumCharge } from './pricing/billing-formulas.js';
export { expressionRequest } from './pipeline/model-price.js';
// The task relay routes submits as the relay routes requests (the auto group, cross-group retry, RetryTimes).
export { type ChannelRoute, ChannelSelection, type RouteCaller } from './pipeline/channel-selection.js';

import { CreateQuotaReservations1732262410000 } from './billing/migrations/1732262410000-create-quota-reservations.js';

/** The relay's own tables: the durable reservations of requests in flight and the instances holding them. */
export const relaySchema = {
  entities: [],
  migrations: [CreateQuotaReservations1732262410000],
};
// For the suites generated from the route table (the relay's POST routes are served before Express's router).
export { relayRouteTemplates } from './http/relay-routes.js';
export { applyWindow, MODEL_WINDOW_OP, SlidingWindowLog } from './rate-limit/index.js';
