import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from './transformers.js';

/** A lease on a scheduled job (ours, not new-api's): whoever holds an unexpired row runs the job. */
@Entity({ name: 'job_locks' })
export class JobLockEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 64, default: '' })
  holder: string;

  /** Unix milliseconds; an expired lease may be taken over (its holder crashed). */
  @Column({ name: 'expires_at', type: 'bigint', default: 0, transformer: bigintNumber })
  expiresAt: number;
}
