import { z } from 'zod';

export const LoginSchema = z.object({
  username: z.string().max(64, 'username is too long').optional().default(''),
  password: z.string().max(64, 'password is too long').optional().default(''),
});
export type LoginRequest = z.infer<typeof LoginSchema>;

/** What a successful login returns (new-api's shape). */
export interface LoginResult {
  id: number;
  username: string;
  display_name: string;
  role: number;
  status: number;
  group: string;
}
