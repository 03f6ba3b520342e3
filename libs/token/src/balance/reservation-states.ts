/**
 * A reservation row's states (quota_reservations.charged), on every database: -1 open (debited), -3 refunded
 * (the server paths mark instead of deleting, and the row goes with the next batch), ≥ 0 settled with that
 * charge; MySQL's unused slots are FREE_SLOT (mysql-reservation-slots.ts). The ReservationRecovery finishes
 * each state.
 */
export const OPEN = -1;
export const REFUNDED = -3;
