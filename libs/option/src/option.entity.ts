import { Column, Entity, PrimaryColumn } from 'typeorm';

/** new-api's `options` table: one row per key that differs from its default. */
@Entity({ name: 'options' })
export class OptionEntity {
  @PrimaryColumn({ name: 'key', type: 'varchar', length: 191 })
  key: string;

  @Column({ name: 'value', type: 'text', nullable: true })
  value: string | null;
}
