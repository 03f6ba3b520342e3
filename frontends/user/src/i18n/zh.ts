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
  save: '保存',
  logs: {
    title: '使用日志',
    query: '查询', reset: '重置', columnSettings: '列设置', columnsAll: '全选', columnsNone: '全不选',
    stream: '流', nonStream: '非流', firstToken: '首字时间',
    filter: { token_name: '令牌名称', model_name: '模型名称', group: '分组', username: '用户名称', channel: '渠道 ID' },
    type: { all: '全部', topUp: '充值', consume: '消费', manage: '管理', system: '系统', error: '错误', refund: '退款', unknown: '未知' },
    stat: { quota: '消耗额度: {{value}}' },
    column: {
      time: '时间', channel: '渠道', user: '用户', token: '令牌', group: '分组', type: '类型', model: '模型',
      useTime: '用时/首字', prompt: '提示', completion: '补全', cost: '花费', retry: '重试', details: '详情',
    },
    columnName: {
      time: '时间', channel: '渠道', user: '用户', token: '令牌', group: '分组', type: '类型', model: '模型',
      use_time: '用时', prompt: '提示 tokens', completion: '补全 tokens', cost: '花费', retry: '重试', details: '详情',
    },
    details: {
      modelRatio: '模型倍率 {{value}}', completionRatio: '补全倍率 {{value}}', groupRatio: '分组倍率 {{value}}',
      perCall: '按次计费 {{price}} × 分组倍率 {{group}}', cache: '缓存 tokens {{tokens}}（倍率 {{ratio}}）',
      cacheCreation: '缓存创建 tokens {{tokens}}（倍率 {{ratio}}）', reasoning: '推理强度 {{value}}',
      localCount: '上游未返回用量，按本地计算',
    },
    userInfo: {
      title: '用户信息', username: '用户名', displayName: '显示名称', group: '分组', balance: '余额',
      used: '已用额度', requests: '请求次数', email: '邮箱',
    },
  },
  balance: { current: '当前余额', used: '历史消耗', requests: '请求次数' },
  wallet: {
    redeemTitle: '兑换码充值', codePlaceholder: '请输入兑换码', redeem: '兑换', buyCode: '获取兑换码',
    enterCode: '请输入兑换码', redeemed: '兑换成功，到账 {{amount}}', noTopUpLink: '超级管理员未设置充值链接！',
    onlineTitle: '在线充值', onlineDisabled: '管理员未开启在线充值！',
    belowMinimum: '充值数量不能小于 {{min}}', minimum: '最低充值：{{min}}', payable: '实付金额：{{price}}',
    confirmTitle: '确认充值', confirmBody: '充值 {{amount}}，使用{{method}}支付 {{price}}？', pay: '支付',
    status: { success: '成功', pending: '待支付', expired: '已过期' },
    history: {
      title: '充值记录', tradeNo: '订单号', amount: '充值数量', money: '支付金额', method: '支付方式', status: '状态',
      created: '创建时间', completed: '完成时间',
    },
  },
  personal: {
    language: '语言',
    models: { title: '可用模型', none: '暂无可用模型', expand: '展开更多 {{count}} 个', collapse: '收起', copied: '已复制 {{model}}' },
    invite: {
      title: '邀请', copy: '复制邀请链接', copied: '邀请链接已复制到剪切板', pending: '待使用收益：{{amount}}',
      total: '总收益：{{amount}}', count: '邀请人数：{{count}}', transfer: '划转到余额',
      available: '可用额度：{{amount}}', minimum: '划转金额最低为 {{amount}}', transferred: '划转成功',
    },
    bind: {
      title: '账户绑定', none: '未绑定', bound: '已绑定', bind: '绑定', change: '修改', email: '邮箱', wechat: '微信',
      emailTitle: '绑定邮箱', emailPlaceholder: '输入邮箱地址', codePlaceholder: '验证码', sendCode: '获取验证码',
      resendIn: '重新发送 ({{seconds}})', codeSent: '验证码发送成功，请检查邮箱！', emailRequired: '请输入邮箱！',
      emailAndCode: '请输入邮箱和验证码！', codeRequired: '请输入验证码！',
      done: '绑定成功！', wechatTitle: '绑定微信',
      wechatHint: '微信扫码关注公众号，输入「验证码」获取验证码（三分钟内有效）',
    },
    account: {
      title: '账户', generateToken: '生成系统访问令牌', tokenCopied: '令牌已重置并已复制到剪贴板',
      changePassword: '修改密码', originalPassword: '原密码', newPassword: '新密码（8-20 位）',
      confirmPassword: '确认新密码', passwordTooShort: '密码长度不得小于 8 位！',
      passwordMismatch: '两次输入的密码不一致！', passwordChanged: '密码修改成功！',
      delete: '删除个人账户', deleteOk: '删除', deleteWarning: '您正在删除自己的帐户，将清空所有数据且不可恢复',
      deletePlaceholder: '请输入你的账户名（{{username}}）以确认删除', deleteConfirmMismatch: '请输入你的账户名以确认删除！',
      deleted: '账户已删除！',
    },
    notify: {
      title: '通知与价格设置', type: '通知方式', email: '邮件', threshold: '额度预警阈值',
      webhookUrl: 'Webhook 地址', webhookHint: '必须是 https 地址；以 Bearer 方式携带密钥 POST',
      webhookSecret: 'Webhook 密钥', notificationEmail: '通知邮箱', emailHint: '留空则发送到绑定的邮箱',
      acceptUnpriced: '接受未设置价格的模型', acceptUnpricedHint: '允许调用管理员尚未设置价格的模型',
      webhookRequired: 'Webhook 地址不能为空', webhookHttps: 'Webhook 地址必须以 https:// 开头',
      saved: '设置已保存', failed: '通知设置更新失败',
    },
  },
  dashboard: {
    disabled: '管理员已关闭数据导出，看板不再显示新的使用数据。',
    pickRange: '请选择时间范围', spanTooLong: '时间跨度不能超过一个月', allUsers: '全部用户（或输入用户名）',
    granularity: { hour: '小时', day: '天', week: '周' },
    emptyTitle: '暂无数据', empty: '该时间范围内还没有使用记录。',
    card: {
      balance: '当前余额', used: '历史消耗', requests: '请求次数', rangeQuota: '区间消耗', rangeCount: '区间请求', rangeTokens: '区间 Tokens',
    },
    chart: { quota: '模型消耗分布', count: '模型调用次数', tokens: '模型 Tokens', topModels: '模型排行' },
  },
};
