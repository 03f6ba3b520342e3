import type { ChannelEntity } from './channel.entity.js';

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
  channel_info: { is_multi_key: boolean; multi_key_size: number; multi_key_status_list: null; multi_key_polling_index: number; multi_key_mode: string };
}

export function toChannelView(row: ChannelEntity): ChannelView {
  return {
    id: row.id,
    type: row.type,
    key: '',
    openai_organization: row.openaiOrganization,
    test_model: row.testModel,
    status: row.status,
    name: row.name,
    weight: row.weight,
    created_time: row.createdTime,
    test_time: row.testTime,
    response_time: row.responseTime,
    base_url: row.baseUrl ?? '',
    other: row.other ?? '',
    balance: Number(row.balance) || 0,
    balance_updated_time: row.balanceUpdatedTime,
    models: row.models ?? '',
    group: row.group,
    used_quota: row.usedQuota,
    model_mapping: row.modelMapping ?? '',
    status_code_mapping: row.statusCodeMapping ?? '',
    priority: row.priority,
    auto_ban: row.autoBan,
    other_info: row.otherInfo ?? '',
    tag: row.tag || null,
    setting: row.setting ?? '',
    param_override: row.paramOverride ?? '',
    header_override: row.headerOverride ?? '',
    max_input_tokens: row.maxInputTokens,
    remark: row.remark,
    channel_info: { is_multi_key: false, multi_key_size: 0, multi_key_status_list: null, multi_key_polling_index: 0, multi_key_mode: '' },
  };
}
