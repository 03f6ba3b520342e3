import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * new-api's `custom_oauth_providers` (the OAuth 2 / OIDC columns). `client_secret` is encrypted at
 * rest when written here (`enc:v1:…`); a plain secret from new-api is read as is.
 */
@Entity({ name: 'custom_oauth_providers' })
export class CustomOAuthProviderEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 64, unique: true })
  slug: string;

  @Column({ type: 'varchar', length: 128, default: '' })
  icon: string;

  @Column({ type: 'varchar', length: 32, default: 'oauth_code' })
  kind: string;

  @Column({ type: 'boolean', default: false })
  enabled: boolean;

  @Column({ name: 'client_id', type: 'varchar', length: 256, nullable: true })
  clientId: string | null;

  @Column({ name: 'client_secret', type: 'varchar', length: 512, nullable: true })
  clientSecret: string | null;

  @Column({ name: 'authorization_endpoint', type: 'varchar', length: 512, nullable: true })
  authorizationEndpoint: string | null;

  @Column({ name: 'token_endpoint', type: 'varchar', length: 512, nullable: true })
  tokenEndpoint: string | null;

  @Column({ name: 'user_info_endpoint', type: 'varchar', length: 512, nullable: true })
  userInfoEndpoint: string | null;

  @Column({ type: 'varchar', length: 256, default: 'openid profile email' })
  scopes: string;

  @Column({ name: 'user_id_field', type: 'varchar', length: 128, default: 'sub' })
  userIdField: string;

  @Column({ name: 'username_field', type: 'varchar', length: 128, default: 'preferred_username' })
  usernameField: string;

  @Column({ name: 'display_name_field', type: 'varchar', length: 128, default: 'name' })
  displayNameField: string;

  @Column({ name: 'email_field', type: 'varchar', length: 128, default: 'email' })
  emailField: string;

  @Column({ name: 'well_known', type: 'varchar', length: 512, nullable: true })
  wellKnown: string | null;

  /** 0 auto (HTTP Basic), 1 client id and secret in the form, 2 HTTP Basic. */
  @Column({ name: 'auth_style', type: 'integer', default: 0 })
  authStyle: number;

  /** A gateway column (not in new-api): PKCE S256 for this provider. */
  @Column({ name: 'pkce_enabled', type: 'boolean', default: false })
  pkceEnabled: boolean;

  @CreateDateColumn({ name: 'created_at', nullable: true })
  createdAt: Date | null;

  @UpdateDateColumn({ name: 'updated_at', nullable: true })
  updatedAt: Date | null;
}

/** new-api's `user_oauth_bindings`: one account per provider per user, one user per provider account. */
@Entity({ name: 'user_oauth_bindings' })
@Index('ux_user_provider', ['userId', 'providerId'], { unique: true })
@Index('ux_provider_userid', ['providerId', 'providerUserId'], { unique: true })
export class UserOAuthBindingEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'provider_id', type: 'integer' })
  providerId: number;

  @Column({ name: 'provider_user_id', type: 'varchar', length: 256 })
  providerUserId: string;

  @CreateDateColumn({ name: 'created_at', nullable: true })
  createdAt: Date | null;
}
