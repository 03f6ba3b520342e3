import { z } from 'zod';

/** `{code}` of the 2FA routes: a 6-digit TOTP code or an `XXXX-XXXX` backup code. */
export const TwoFaCodeSchema = z.object({
  code: z
    .string({ error: 'please enter the verification code' })
    .trim()
    .min(1, 'please enter the verification code')
    .max(32, 'the verification code is too long'),
});
export type TwoFaCodeRequest = z.infer<typeof TwoFaCodeSchema>;

/** `POST /api/verify`: re-verification before a sensitive action (new-api's universal verification). */
export const SecureVerifySchema = z.object({
  method: z.enum(['2fa', 'passkey', 'password'], { error: 'method must be one of 2fa, passkey, password' }),
  code: z.string().max(128, 'the code is too long').optional().default(''),
  password: z.string().max(64, 'password is too long').optional().default(''),
});
export type SecureVerifyRequest = z.infer<typeof SecureVerifySchema>;

const slug = z
  .string({ error: 'provider slug is required' })
  .trim()
  .toLowerCase()
  .min(1, 'provider slug is required')
  .max(64, 'provider slug is too long')
  .regex(/^[a-z0-9-]+$/, 'provider slug must contain only lowercase letters, numbers, and hyphens');
const url = z
  .string()
  .trim()
  .max(512, 'the URL is too long')
  .refine((v) => v === '' || /^https?:\/\/[^\s]+$/i.test(v), 'must be an http(s) URL')
  .optional()
  .default('');
const field = (fallback: string) => z.string().trim().max(128).optional().default(fallback);

/** A custom OAuth 2 / OIDC provider as the admin enters it (new-api's `custom_oauth_providers`). */
export const CustomOAuthProviderSchema = z.object({
  name: z.string({ error: 'provider name is required' }).trim().min(1, 'provider name is required').max(64, 'provider name is too long'),
  slug,
  icon: z.string().trim().max(128).optional().default(''),
  enabled: z.boolean().optional().default(false),
  client_id: z.string().trim().max(256).optional().default(''),
  /** Empty on update keeps the stored secret (the secret is never sent back). */
  client_secret: z.string().trim().max(512).optional().default(''),
  authorization_endpoint: url,
  token_endpoint: url,
  user_info_endpoint: url,
  scopes: z.string().trim().max(256).optional().default('openid profile email'),
  user_id_field: field('sub'),
  username_field: field('preferred_username'),
  display_name_field: field('name'),
  email_field: field('email'),
  well_known: url,
  auth_style: z.number().int().min(0).max(2).optional().default(0),
  /** PKCE (S256) on the gateway's authorize link and the token request; logins not started by the gateway are refused. */
  pkce_enabled: z.boolean().optional().default(false),
});
export type CustomOAuthProviderRequest = z.infer<typeof CustomOAuthProviderSchema>;

export const DiscoverySchema = z.object({
  well_known_url: z.string().trim().max(512).optional().default(''),
  well_known: z.string().trim().max(512).optional().default(''),
});

const malformed = 'the passkey response is malformed';
/** A WebAuthn credential as the browser serialises it (RegistrationResponseJSON / AuthenticationResponseJSON). */
export const PasskeyResponseSchema = z.looseObject({
  id: z.string({ error: malformed }).min(1, malformed).max(1024, malformed),
  rawId: z.string({ error: malformed }).max(1024, malformed),
  type: z.literal('public-key', { error: malformed }),
  response: z.looseObject({ clientDataJSON: z.string({ error: malformed }).max(8192, malformed) }, { error: malformed }),
});
export type PasskeyResponse = z.infer<typeof PasskeyResponseSchema>;
