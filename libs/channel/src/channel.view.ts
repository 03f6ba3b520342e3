import type { ChannelView } from '@gw/contracts';
import type { ChannelEntity } from './channel.entity.js';

export type { ChannelView };

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
