import { z } from 'zod';

/** POST /api/option/smtp_test: where to send the test mail. */
export const SmtpTestSchema = z.object({
  email: z
    .string({ error: 'please enter an email address' })
    .trim()
    .min(1, 'please enter an email address')
    .max(128, 'email is too long')
    .email('invalid email address'),
});
export type SmtpTestRequest = z.infer<typeof SmtpTestSchema>;
