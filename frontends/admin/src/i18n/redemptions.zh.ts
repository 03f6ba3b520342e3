import type { redemptionsEn } from './redemptions.en';
import type { Messages } from './messages';

export const redemptionsZh: Messages<typeof redemptionsEn> = {
  title: '兑换码管理', add: '添加兑换码', edit: '更新兑换码信息', keyword: '关键字(id或者名称)',
  removeInvalid: '清除失效兑换码', count: '生成数量', countHint: '一次生成的数量（1-100）',
  nameHint: '最多 20 个字符；留空则使用额度', expiryHint: '留空表示永不过期', never: '永不过期',
  redeemedBy: '用户 {{user}} 于 {{time}}', download: '下载为文本文件', copyAll: '全部复制',
  keysTitle: '已生成 {{count}} 个兑换码', keysOnce: '请立即保存这些兑换码：复制或下载为文本文件。',
  column: { name: '名称', status: '状态', quota: '额度', created: '创建时间', expires: '过期时间', redeemedBy: '兑换人' },
  status: { unused: '未使用', disabled: '已禁用', used: '已使用', expired: '已过期' },
  action: { copy: '复制' },
  confirm: { delete: '确定是否要删除此兑换码？', removeInvalid: '确定清除所有已使用、已禁用或已过期的兑换码？' },
  error: { quota: '额度不能为负数', count: '生成数量必须在 1 到 100 之间', expiry: '过期时间不能早于当前时间' },
  updated: '兑换码更新成功！', enabled: '兑换码已启用', disabled: '兑换码已禁用', deleted: '兑换码已删除',
  copied: '已复制到剪贴板！',
  removedInvalid: '已清除 {{count}} 个失效兑换码',
};
