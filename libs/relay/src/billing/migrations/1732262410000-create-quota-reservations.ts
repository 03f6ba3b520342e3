import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

/**
 * The durable side of a request's reservation: a row written in the same transaction as the reserve,
 * marked with the charge in the settle's transaction, and deleted once the consume log row is written
 * (or with the refund). Rows left behind by an instance that died are settled or refunded by the
 * recovery job; `ledger_owners` tells which instances are alive.
 */
export class CreateQuotaReservations1732262410000 implements MigrationInterface {
  name = 'CreateQuotaReservations1732262410000';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'quota_reservations',
      [
        col.varchar('request_id', 64, { isNullable: false, isPrimary: true }),
        col.int('user_id'),
        col.int('token_id'),
        col.bigint('amount'),
        // -1 while open; the total charged once the settle committed.
        col.bigint('charged', { default: -1 }),
        col.varchar('owner', 64, { isNullable: false, default: "''" }),
        col.bigint('created_at'),
      ],
      [index('quota_reservations', ['owner'])],
    );
    await createTable(runner, 'ledger_owners', [
      col.varchar('id', 64, { isNullable: false, isPrimary: true }),
      col.varchar('host', 255, { isNullable: false, default: "''" }),
      col.int('pid'),
      col.bigint('seen_at'),
    ]);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('ledger_owners', true);
    await runner.dropTable('quota_reservations', true);
  }
}
