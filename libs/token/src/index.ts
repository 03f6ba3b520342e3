import { AddCrossGroupRetry1732262404100 } from './migrations/1732262404100-add-cross-group-retry.js';
import { CreateTokens1732262404000 } from './migrations/1732262404000-create-tokens.js';
import { TokenEntity } from './token.entity.js';

export { TokenModule } from './token.module.js';
export { TokenAuthService, type AuthenticateOptions } from './token-auth.service.js';
export {
  RelayAuthError,
  type RelayCredentials,
  type RelayIdentity,
  type TokenSnapshot,
  type UserSnapshot,
  type UserSetting,
} from './relay-identity.js';
export { TokenStatus } from './token.entity.js';
export { maskKey } from './token-key.js';
// Balance movements of a user and a token together (the relay's reserve/settle/refund, task adjustments).
export {
  adjustPlan,
  dropFreeSlotsPlan,
  forgetReservationsPlan,
  releasePlan,
  reservePlan,
  settlePlan,
  RESERVATION_FORGET_WHERE,
  type LeanLedger,
  type ReservationKey,
  type ReserveOutcome,
  type SettleOutcome,
} from './balance/balance-plans.js';
export { BalanceLedger } from './balance/balance-ledger.service.js';
export { FREE_SLOT } from './balance/mysql-balance.js';
export { OPEN, REFUNDED } from './balance/reservation-states.js';

export const tokenSchema = {
  entities: [TokenEntity],
  migrations: [CreateTokens1732262404000, AddCrossGroupRetry1732262404100],
};
