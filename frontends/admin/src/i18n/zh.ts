import { customOAuthZh } from '../features/settings/custom-oauth/i18n';
import { settingsZh } from './settings.zh';
import { redemptionsZh } from './redemptions.zh';
import { channelsZh } from './channels.zh';
import type { en } from './en';
import type { Messages } from './messages';

export const zh: Messages<typeof en> = {
  pages: { users: '用户管理', channels: '渠道', redemptions: '兑换码管理', settings: '系统设置' },
  cancel: '取消',
  close: '关闭',
  redemptions: redemptionsZh,
  settings: settingsZh,
  channels: channelsZh,
  submit: '提交',
  users: {
    title: '用户管理',
    add: '添加用户',
    edit: '编辑用户',
    keyword: '支持搜索用户的 ID、用户名、显示名称和邮箱地址',
    group: '分组',
    search: '查询',
    required: '用户名和密码不能为空！',
    created: '用户账户创建成功！',
    updated: '用户信息更新成功！',
  },
  column: { username: '用户名', group: '分组', stats: '统计信息', invite: '邀请信息', role: '用户角色', status: '状态' },
  stats: { remaining: '剩余额度: {{value}}', used: '已用额度: {{value}}', requests: '调用次数: {{value}}' },
  invite: { count: '邀请: {{value}}', earnings: '收益: {{value}}', inviter: '邀请人: {{value}}', none: '无邀请人' },
  role: { user: '普通用户', admin: '管理员', root: '超级管理员', unknown: '未知身份' },
  status: { active: '已激活', banned: '已封禁', deregistered: '已注销', unknown: '未知状态' },
  action: {
    promote: '提升',
    demote: '降级',
    disable: '禁用',
    enable: '启用',
    edit: '编辑',
    delete: '注销',
    deleteConfirm: '确定要注销此用户吗？此操作不可撤销。',
  },
  security: {
    title: '安全与绑定',
    reset2fa: '重置两步验证',
    reset2faConfirm: '确定要关闭该用户的两步验证吗？',
    resetPasskey: '重置 Passkey',
    resetPasskeyConfirm: '确定要删除该用户的所有 Passkey 吗？',
    bindings: '账户绑定',
    noBindings: '暂无绑定',
    unbind: '解绑',
    unbindConfirm: '确定要解除此绑定吗？',
    delete: '彻底删除',
    deleteConfirm: '确定要彻底删除该用户及其全部数据吗？此操作不可撤销。',
    done: '操作成功',
    binding: {
      email: '邮箱',
      github: 'GitHub',
      oidc: 'OIDC',
      linuxdo: 'Linux DO',
      discord: 'Discord',
      wechat: '微信',
      telegram: 'Telegram',
    },
  },
  field: {
    displayName: '显示名称',
    password: '密码',
    passwordHint: '至少 8 位',
    passwordEditHint: '留空则不修改，最短 8 位',
    quota: '剩余额度',
    quotaAmount: '相当于 {{amount}}',
    remark: '备注（仅管理员可见）',
  },
  customOAuth: customOAuthZh,
};
