import { z } from 'zod';
import { nameText } from './text.js';

/** POST /api/setup; the Chinese messages are the spec's (spec 001 §5 Setup). */
export const SetupSchema = z.object({
  username: nameText(12, 'username must be at most 12 characters').optional().default(''),
  password: z.string().max(64, 'password must be at most 64 characters').optional().default(''),
  confirmPassword: z.string().max(64).optional().default(''),
  SelfUseModeEnabled: z.boolean().optional().default(false),
  DemoSiteEnabled: z.boolean().optional().default(false),
});
export type SetupRequest = z.infer<typeof SetupSchema>;

export interface SetupStatus {
  status: boolean;
  root_init: boolean;
  database_type: 'sqlite' | 'mysql' | 'postgres' | '';
}
