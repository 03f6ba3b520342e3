import type { CustomOAuthProviderEntity } from '../custom-oauth/custom-oauth.entity.js';

export type BuiltInProvider = 'github' | 'oidc' | 'linuxdo' | 'discord' | 'wechat' | 'telegram';

/** The account at the provider, as a login strategy proved it. */
export interface ExternalIdentity {
  id: string;
  username?: string;
  displayName?: string;
  email?: string;
}

/** What a third-party passport strategy puts in `req.user`; the controller turns it into a login or a binding. */
export type ProvenIdentity =
  | { provider: BuiltInProvider; identity: ExternalIdentity; aff: string }
  | { provider: 'custom'; custom: CustomOAuthProviderEntity; identity: ExternalIdentity; aff: string };

export const str = (value: unknown): string => (typeof value === 'string' ? value.slice(0, 512) : '');
