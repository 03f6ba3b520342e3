import { randomUUID } from 'node:crypto';
import type { MysqlPool } from '@gw/database';

/**
 * quota_reservations.charged of a free slot: a row this instance inserted ahead of time, holding no money
 * (user 0, token 0, amount 0), that a reserve turns into its open reservation. Free slots are removed at a
 * graceful shutdown and, for a stopped instance, by the recovery job; nothing else reads them.
 */
export const FREE_SLOT = -9;

/** Slots inserted per refill (one multi-row INSERT); a refill starts when fewer than LOW are left. */
const REFILL = 64;
const LOW = 32;

const INSERT_SLOTS = `INSERT INTO quota_reservations (request_id, user_id, token_id, amount, charged, owner, created_at) VALUES ${Array.from(
  { length: REFILL },
  () => `(?, 0, 0, 0, ${FREE_SLOT}, ?, ?)`,
).join(', ')}`;
const DELETE_FREE = `DELETE FROM quota_reservations WHERE owner = ? AND charged = ${FREE_SLOT}`;

/**
 * Why slots: on MySQL/MariaDB a reserve has to debit the user and the token and write the durable
 * reservation row in one commit. As an UPDATE and an INSERT that is START TRANSACTION, UPDATE, INSERT,
 * COMMIT: four round trips before the upstream call. With a free row of this instance already in the
 * table, one multi-table UPDATE debits the balances and turns the row into the open reservation (new
 * request id, user, token, amount, charged = -1) atomically: one autocommitted statement, one round trip,
 * the same single durable commit. The rows are inserted in batches off the request path; a reserve that
 * finds no free slot takes the four-round-trip path, so nothing waits for a refill.
 *
 * Each slot id is handed to one reserve at a time (popped from this in-process list), so reserves never
 * compete for a slot.
 */
export class ReservationSlots {
  private readonly free = new Map<string, string[]>();
  private readonly refilling = new Set<string>();
  /** Set by dropAll: no more refills (a late one's rows would outlive the shutdown until a recovery). */
  private closed = false;

  constructor(
    private readonly pool: MysqlPool,
    private readonly warn: (message: string) => void,
  ) {}

  /** A free slot of `owner` for one reserve, or undefined (none ready: the caller takes the plain path). */
  take(owner: string): string | undefined {
    const slots = this.free.get(owner) ?? [];
    const slot = slots.pop();
    if (slots.length < LOW) this.refill(owner);
    return slot;
  }

  /** How many free slots of `owner` this process holds now (rows already in the table and handed to it). */
  count(owner: string): number {
    return this.free.get(owner)?.length ?? 0;
  }

  /** A slot the reserve did not use (the reserve was refused): still free, so usable again. */
  giveBack(owner: string, slot: string): void {
    this.free.get(owner)?.push(slot);
  }

  /** Removes every free slot of the owners this process made slots for (a graceful shutdown). */
  async dropAll(): Promise<void> {
    this.closed = true;
    const owners = [...this.free.keys()];
    this.free.clear();
    await Promise.all(owners.map((owner) => this.execute(DELETE_FREE, [owner])));
  }

  private refill(owner: string): void {
    if (this.closed || this.refilling.has(owner)) return;
    this.refilling.add(owner);
    const ids = Array.from({ length: REFILL }, () => `slot:${randomUUID()}`);
    const now = Math.floor(Date.now() / 1000);
    const values: unknown[] = [];
    for (const id of ids) values.push(id, owner, now);
    this.execute(INSERT_SLOTS, values)
      .then(
        () => {
          const slots = this.free.get(owner) ?? [];
          slots.push(...ids);
          this.free.set(owner, slots);
        },
        // Reserves keep working without slots (the plain path); the next take() tries again.
        (error: Error) => this.warn(`adding free reservation slots: ${error.message}`),
      )
      .finally(() => this.refilling.delete(owner));
  }

  private execute(sql: string, values: unknown[]): Promise<unknown> {
    return new Promise((resolve, reject) => this.pool.execute(sql, values, (error, result) => (error ? reject(error) : resolve(result))));
  }
}
