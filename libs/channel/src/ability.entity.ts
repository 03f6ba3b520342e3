import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber, intBoolean } from '@gw/database';

/** new-api's `abilities`: the denormalised routing index group × model × channel. */
@Entity({ name: 'abilities' })
export class AbilityEntity {
  @PrimaryColumn({ name: 'group', type: 'varchar', length: 64 })
  group: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  model: string;

  @PrimaryColumn({ name: 'channel_id', type: 'integer' })
  channelId: number;

  @Column({ type: 'integer', default: 1, transformer: intBoolean })
  enabled: boolean;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  priority: number;

  @Column({ type: 'integer', default: 0 })
  weight: number;

  @Column({ type: 'varchar', length: 255, nullable: true })
  tag: string | null;
}
