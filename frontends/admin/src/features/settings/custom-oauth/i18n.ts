import { registerNamespace } from '@console/kit';

const en = {
  title: 'Custom OAuth providers',
  hint: 'Any OAuth 2 or OpenID Connect provider users can log in with. Its callback URL is {{url}}.',
  add: 'Add provider', edit: 'Edit', delete: 'Delete', deleteConfirm: 'Delete {{name}}? Every account linked through it is unlinked.',
  saved: 'Provider saved', deleted: 'Provider deleted', discover: 'Fetch from Well-Known URL', discovered: 'Endpoints filled from the discovery document',
  empty: 'No custom provider yet.', enabled: 'Enabled', disabled: 'Disabled', cancel: 'Cancel', save: 'Save',
  secretKept: 'leave empty to keep the stored secret',
  field: {
    name: 'Name', slug: 'Slug (used in the callback URL)', icon: 'Icon', enabled: 'Enabled', clientId: 'Client ID', clientSecret: 'Client secret',
    wellKnown: 'Well-Known URL', authorization: 'Authorization endpoint', token: 'Token endpoint', userInfo: 'User info endpoint', scopes: 'Scopes',
    userId: 'User ID field', username: 'Username field', displayName: 'Display name field', email: 'Email field',
    authStyle: 'Client authentication', authAuto: 'Auto (HTTP Basic)', authParams: 'In the request body', authHeader: 'HTTP Basic header',
  },
};

const zh: typeof en = {
  title: '自定义 OAuth 提供商',
  hint: '用户可以使用任意 OAuth 2 或 OpenID Connect 提供商登录。回调地址为 {{url}}。',
  add: '添加提供商', edit: '编辑', delete: '删除', deleteConfirm: '确定删除 {{name}}？通过它绑定的账户都会解绑。',
  saved: '提供商已保存', deleted: '提供商已删除', discover: '从 Well-Known URL 获取', discovered: '已根据发现文档填写端点',
  empty: '还没有自定义提供商。', enabled: '已启用', disabled: '已禁用', cancel: '取消', save: '保存',
  secretKept: '留空则保留已保存的密钥',
  field: {
    name: '名称', slug: '标识（用于回调地址）', icon: '图标', enabled: '启用', clientId: 'Client ID', clientSecret: 'Client Secret',
    wellKnown: 'Well-Known URL', authorization: '授权端点', token: 'Token 端点', userInfo: '用户信息端点', scopes: 'Scopes',
    userId: '用户 ID 字段', username: '用户名字段', displayName: '显示名称字段', email: '邮箱字段',
    authStyle: '客户端认证方式', authAuto: '自动（HTTP Basic）', authParams: '放在请求体中', authHeader: 'HTTP Basic 请求头',
  },
};

registerNamespace('customOAuth', { en, zh });
