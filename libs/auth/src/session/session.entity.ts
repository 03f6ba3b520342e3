import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@gw/database';

/**
 * Server-side login sessions. The cookie carries a random id; the row is keyed by its SHA-256, so a
 * database dump holds no usable cookie. Deleting rows ends sessions at once (logout, ban, password change).
 */
@Entity({ name: 'sessions' })
export class SessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber })
  createdAt: number;

  @Column({ name: 'expires_at', type: 'bigint', transformer: bigintNumber })
  expiresAt: number;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip: string | null;
}
