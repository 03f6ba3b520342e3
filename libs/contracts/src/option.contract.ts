import { z } from 'zod';

export const UpdateOptionSchema = z.object({
  key: z.string({ error: 'key is required' }).min(1, 'key is required').max(191),
  value: z.union([z.string(), z.number(), z.boolean(), z.record(z.string(), z.unknown()), z.array(z.unknown()), z.null()]),
});
export type UpdateOptionRequest = z.infer<typeof UpdateOptionSchema>;
