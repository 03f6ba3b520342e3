import { Column, CreateDateColumn, DeleteDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { bigintNumber } from '@gw/database';

/**
 * new-api's `passkey_credentials`, column for column. Binary values are standard base64 as new-api
 * (go-webauthn) writes them: the credential id, the COSE public key and the AAGUID.
 */
@Entity({ name: 'passkey_credentials' })
export class PasskeyCredentialEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'credential_id', type: 'varchar', length: 512, unique: true })
  credentialId: string;

  @Column({ name: 'public_key', type: 'text' })
  publicKey: string;

  @Column({ name: 'attestation_type', type: 'varchar', length: 255, nullable: true })
  attestationType: string | null;

  @Column({ type: 'varchar', length: 512, nullable: true })
  aaguid: string | null;

  @Column({ name: 'sign_count', type: 'bigint', default: 0, transformer: bigintNumber })
  signCount: number;

  @Column({ name: 'clone_warning', type: 'boolean', default: false })
  cloneWarning: boolean;

  @Column({ name: 'user_present', type: 'boolean', default: false })
  userPresent: boolean;

  @Column({ name: 'user_verified', type: 'boolean', default: false })
  userVerified: boolean;

  @Column({ name: 'backup_eligible', type: 'boolean', default: false })
  backupEligible: boolean;

  @Column({ name: 'backup_state', type: 'boolean', default: false })
  backupState: boolean;

  /** JSON array of transports (`["internal","hybrid"]`). */
  @Column({ type: 'text', nullable: true })
  transports: string | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  attachment: string | null;

  @Column({ name: 'last_used_at', type: Date, nullable: true })
  lastUsedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', nullable: true })
  createdAt: Date | null;

  @UpdateDateColumn({ name: 'updated_at', nullable: true })
  updatedAt: Date | null;

  @DeleteDateColumn({ name: 'deleted_at', nullable: true })
  deletedAt: Date | null;
}
