import type { en } from './en';

type Messages<T> = { [K in keyof T]: T[K] extends string ? string : Messages<T[K]> };

export const zh: Messages<typeof en> = {
  pages: { tokens: 'API令牌', logs: '使用日志', dashboard: '数据看板', drawing: '绘图日志', tasks: '任务日志', wallet: '钱包', personal: '个人设置' },
  cancel: '取消',
  submit: '提交',
  tokens: {
    title: 'API令牌',
    warning: '令牌仅供个人使用，请勿分享给他人：持有令牌的人会消耗你的额度。',
    create: '添加令牌', editTitle: '编辑令牌', edit: '编辑', delete: '删除', enable: '启用', disable: '禁用',
    chat: '聊天', copy: '复制密钥', copied: '已复制到剪贴板！', deleteConfirm: '确定要删除此令牌吗？',
    deleteSelected: '删除所选令牌', deleteSelectedConfirm: '确定要删除所选的 {{count}} 个令牌吗？', selectFirst: '请至少选择一个令牌！',
    searchName: '令牌名称', searchKey: '令牌密钥', search: '查询',
    created: '令牌创建成功！', updated: '令牌更新成功！', deleted: '删除成功！', done: '操作成功完成！',
    noChatLinks: '请联系管理员配置聊天链接', chatLinkError: '聊天链接配置错误，请联系管理员',
    unlimited: '无限额度', never: '永不过期', userGroup: '用户分组',
    status: { enabled: '已启用', limited: '已启用：限制模型', disabled: '已禁用', expired: '已过期', exhausted: '已耗尽', unknown: '未知状态' },
    column: { name: '名称', status: '状态', used: '已用额度', remaining: '剩余额度', group: '分组', key: '密钥', created: '创建时间', expires: '过期时间' },
    form: {
      nameRequired: '请输入令牌名称', expiryInvalid: '过期时间格式错误！', countInvalid: '数量必须为正整数',
      expiry: { never: '永不过期', hour: '一小时', day: '一天', month: '一个月' },
      quota: '额度（{{amount}}）', count: '新建数量（多个令牌会自动加上 6 位随机后缀）',
      modelLimits: '模型限制', allModels: '允许所有模型', allowIps: 'IP 白名单',
      allowIpsHint: '每行一个 IP 或 CIDR，留空则不限制',
    },
  },
};
