/**
 * Read shape of the usage-log API (GET /api/log/ and /api/log/self/), shared by the gateway and the console
 * (type-only, so a frontend importing it pulls nothing into its bundle).
 */

/** A log row as new-api's JSON (`channel` is the channel id; `other` stays a JSON string). */
export interface LogView {
  id: number;
  user_id: number;
  created_at: number;
  type: number;
  content: string;
  username: string;
  token_name: string;
  model_name: string;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Seconds. */
  use_time: number;
  is_stream: boolean;
  channel: number;
  channel_name: string;
  token_id: number;
  group: string;
  ip: string;
  request_id: string;
  /** JSON text: ratios, first-token time, mapped model, admin_info (admins only). */
  other: string;
}
