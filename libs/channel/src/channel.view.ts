import type { ChannelView } from '@gw/contracts';
import type { ChannelEntity } from './channel.entity.js';
import { parseChannelInfo, splitKeys, type ChannelInfo } from './multi-key.js';

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
    channel_info: viewInfo(row),
    settings: row.otherSettings ?? '',
  };
}

/** The stored info with the size taken from the key list itself, so an edited key column never shows a stale count. */
function viewInfo(row: ChannelEntity): ChannelInfo {
  const info = parseChannelInfo(row.channelInfo);
  return info.is_multi_key ? { ...info, multi_key_size: splitKeys(row.key).length } : info;
}
