import { z } from 'zod';

/** POST /api/user/register (spec 000 §5 messages; presence and lengths are checked by the service in spec order). */
export const RegisterSchema = z.object({
  username: z.string().trim().max(64, 'username must be at most 12 characters').optional().default(''),
  password: z.string().max(64, 'password length must not exceed 20').optional().default(''),
  password2: z.string().max(64).optional(),
  email: z.string().trim().max(128, 'email is too long').optional().default(''),
  verification_code: z.string().trim().max(16).optional().default(''),
  aff_code: z.string().trim().max(32).optional().default(''),
});
export type RegisterRequest = z.infer<typeof RegisterSchema>;

export const EmailQuerySchema = z.object({
  email: z.string().trim().max(128, 'email is too long').optional().default(''),
  turnstile: z.string().max(4096).optional().default(''),
});

export const ResetPasswordSchema = z.object({
  email: z.string().trim().max(128).optional().default(''),
  token: z.string().trim().max(128).optional().default(''),
});

export const EmailBindSchema = z.object({
  email: z.string().trim().max(128, 'email is too long').optional().default(''),
  code: z.string().trim().max(16).optional().default(''),
});
