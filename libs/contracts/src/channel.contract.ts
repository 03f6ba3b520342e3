import { z } from 'zod';

const text = z.union([z.string(), z.null()]).optional();
/** JSON fields arrive as strings from the console; an object is accepted and serialised. */
const jsonText = z.union([z.string(), z.record(z.string(), z.unknown()), z.null()]).optional();
const list = z.union([z.string(), z.array(z.string())]).optional();
const int = z.union([z.number(), z.string(), z.null()]).optional();

/** A channel as the console sends it (create and update); rules and messages are in the service. */
export const ChannelInputSchema = z.object({
  id: int,
  type: int,
  name: z.string().max(255, 'channel name is too long').optional(),
  key: z.string().optional(),
  openai_organization: text,
  test_model: text,
  status: int,
  base_url: text,
  other: text,
  models: list,
  group: list,
  groups: z.array(z.string()).optional(),
  model_mapping: jsonText,
  status_code_mapping: jsonText,
  param_override: jsonText,
  header_override: jsonText,
  setting: jsonText,
  priority: z.unknown().optional(),
  weight: z.unknown().optional(),
  auto_ban: int,
  tag: text,
  max_input_tokens: int,
  /** new-api's other settings (JSON object or its text). */
  settings: jsonText,
  /** How a multi-key channel picks its key per request. */
  multi_key_mode: z.enum(['random', 'polling'], { error: 'multi_key_mode must be random or polling' }).optional(),
  /** Editing a multi-key channel's keys: add to the list, or replace it (the default). */
  key_mode: z.enum(['append', 'replace'], { error: 'key_mode must be append or replace' }).optional(),
  remark: z.union([z.string().max(255, 'remark is too long'), z.null()]).optional(),
});
export type ChannelInput = z.infer<typeof ChannelInputSchema>;

/** POST /api/channel/: new-api's `{mode, channel}`, or a bare channel object. */
export const CreateChannelSchema = ChannelInputSchema.extend({
  mode: z.enum(['single', 'batch', 'multi_to_single'], { error: 'unknown mode' }).optional(),
  channel: ChannelInputSchema.optional(),
  batch_add_set_key_prefix_2_name: z.boolean().optional(),
});
export type CreateChannelRequest = z.infer<typeof CreateChannelSchema>;

/** POST /api/channel/multi_key/manage: one key (by position) or all keys of a multi-key channel. */
export const MultiKeyManageSchema = z.object({
  channel_id: z.union([z.number(), z.string()], { error: 'channel_id is required' }),
  action: z.enum(
    ['get_key_status', 'enable_key', 'disable_key', 'delete_key', 'enable_all_keys', 'disable_all_keys', 'delete_disabled_keys'],
    {
      error: 'unknown action',
    },
  ),
  key_index: z.union([z.number(), z.string()]).optional(),
});
export type MultiKeyManageRequest = z.infer<typeof MultiKeyManageSchema>;

export const ChannelIdsSchema = z.object({
  ids: z.array(z.union([z.number(), z.string()]), { error: 'please select at least one channel' }).max(1000, 'too many channels at once'),
});

export const BatchTagSchema = z.object({
  ids: z.array(z.union([z.number(), z.string()]), { error: 'please select at least one channel' }).max(1000, 'too many channels at once'),
  tag: z.union([z.string().max(255, 'tag is too long'), z.null()]).optional(),
});

export const EditTagSchema = z.object({
  tag: z.string({ error: 'tag is required' }),
  new_tag: z.union([z.string().max(255, 'tag is too long'), z.null()]).optional(),
  model_mapping: z.union([z.string(), z.null()]).optional(),
  groups: z.union([z.string(), z.array(z.string()), z.null()]).optional(),
  models: z.union([z.string(), z.array(z.string()), z.null()]).optional(),
  priority: z.unknown().optional(),
  weight: z.unknown().optional(),
});
export type EditTagRequest = z.infer<typeof EditTagSchema>;

export const TagSchema = z.object({ tag: z.string({ error: 'tag is required' }).min(1, 'tag is required') });

/** `/api/channel/ollama/pull`, `/pull/stream` and `/delete` (new-api's OllamaModelRequest). */
export const OllamaModelSchema = z.object({
  channel_id: z.coerce.number({ error: 'Channel ID and model name are required' }).int().positive('Channel ID and model name are required'),
  model_name: z
    .string({ error: 'Channel ID and model name are required' })
    .trim()
    .min(1, 'Channel ID and model name are required')
    .max(200),
});
export type OllamaModelRequest = z.infer<typeof OllamaModelSchema>;

export const FetchModelsSchema = z.object({
  base_url: z.union([z.string(), z.null()]).optional(),
  type: z.union([z.number(), z.string()]).optional(),
  key: z.string({ error: 'please fill key' }).min(1, 'please fill key'),
});
