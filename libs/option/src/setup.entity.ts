import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@gw/database';

/** new-api's `setups` table: one row once the first-run wizard has created the root user. */
@Entity({ name: 'setups' })
export class SetupEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 50, nullable: true })
  version: string | null;

  @Column({ name: 'initialized_at', type: 'bigint', transformer: bigintNumber })
  initializedAt: number;
}
