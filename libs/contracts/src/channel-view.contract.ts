/**
 * Read shapes of the channel console API, shared by the gateway and the console (type-only, no runtime
 * code, so a frontend importing them pulls nothing into its bundle).
 */

/** A channel as new-api's console reads it; `key` is always '' (keys never leave the server). */
export interface ChannelView {
  id: number;
  type: number;
  key: '';
  openai_organization: string | null;
  test_model: string | null;
  status: number;
  name: string;
  weight: number;
  created_time: number;
  test_time: number;
  response_time: number;
  base_url: string;
  other: string;
  balance: number;
  balance_updated_time: number;
  models: string;
  group: string;
  used_quota: number;
  model_mapping: string;
  status_code_mapping: string;
  priority: number;
  auto_ban: number;
  other_info: string;
  tag: string | null;
  setting: string;
  param_override: string;
  header_override: string;
  max_input_tokens: number;
  remark: string | null;
  /** Multi-key state (new-api's shape): mode, size, per-key status/reason/time by key position. */
  channel_info: {
    is_multi_key: boolean;
    multi_key_size: number;
    multi_key_status_list: Record<string, number>;
    multi_key_disabled_reason?: Record<string, string>;
    multi_key_disabled_time?: Record<string, number>;
    multi_key_polling_index: number;
    /** 'random' or 'polling' ('' for a single-key channel). */
    multi_key_mode: string;
  };
  /** new-api's other settings (JSON text: azure_responses_version, vertex_key_type, allow_service_tier, ...). */
  settings: string;
}

/** GET /api/channel/ and /api/channel/search: one page plus the count of channels per type. */
export interface ChannelPage {
  items: ChannelView[];
  total: number;
  page: number;
  page_size: number;
  type_counts: Record<string, number>;
}

/** GET /api/channel/test/:id answers outside `data`. */
export interface ChannelTestResult {
  success: boolean;
  message: string;
  time: number;
}
