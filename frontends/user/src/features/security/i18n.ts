import { registerNamespace } from '@console/kit';

const en = {
  title: 'Account security',
  twoFactor: {
    title: 'Two-factor authentication (2FA)',
    off: 'Off: logging in needs only the password.',
    on: 'On: logging in also needs a code from your authenticator app.',
    remaining: '{{count}} backup codes left',
    locked: 'Locked after too many wrong codes; try again in a few minutes.',
    setup: 'Set up 2FA', enable: 'Turn on', disable: 'Turn off 2FA', regenerate: 'New backup codes',
    scan: 'Scan this QR code with an authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, ...), or enter the key by hand.',
    secret: 'Key', code: '6-digit code from the app', codeOrBackup: 'Code from the app or a backup code',
    backupTitle: 'Backup codes', backupHint: 'Each code works once if you lose your phone. They are shown only now: save them somewhere safe.',
    copyCodes: 'Copy codes', copied: 'Backup codes copied', enabled: 'Two-factor authentication is on', disabled: 'Two-factor authentication is off',
    codeRequired: 'please enter the verification code', cancel: 'Cancel', confirm: 'Confirm', done: 'I have saved them',
  },
  passkey: {
    title: 'Passkeys', none: 'No passkey yet: log in with your fingerprint, face or security key instead of a password.',
    off: 'The administrator has not enabled passkeys.', add: 'Add a passkey', remove: 'Remove', removeAll: 'Remove all passkeys',
    added: 'Passkey added', removed: 'Passkey removed', unsupported: 'This browser does not support passkeys', cancelled: 'The passkey prompt was cancelled',
    created: 'Added {{date}}', lastUsed: 'last used {{date}}', never: 'never used',
  },
  bindings: { title: 'Linked accounts', none: 'No linked accounts.', unbind: 'Unlink', unbound: 'Account unlinked', confirm: 'Unlink {{name}}?' },
  checkin: {
    title: 'Daily check-in', hint: 'Check in once a day for a reward between {{min}} and {{max}}.', button: 'Check in', done: 'Checked in today',
    reward: 'Checked in: +{{amount}}', total: '{{count}} check-ins, {{amount}} in total',
  },
};

const zh: typeof en = {
  title: '账户安全',
  twoFactor: {
    title: '两步验证（2FA）',
    off: '未开启：登录只需要密码。',
    on: '已开启：登录还需要认证器应用中的验证码。',
    remaining: '剩余 {{count}} 个备用码',
    locked: '错误次数过多，已暂时锁定，请几分钟后再试。',
    setup: '设置两步验证', enable: '启用', disable: '关闭两步验证', regenerate: '重新生成备用码',
    scan: '请使用认证器应用（Google Authenticator、Microsoft Authenticator、1Password 等）扫描二维码，或手动输入密钥。',
    secret: '密钥', code: '应用中的 6 位验证码', codeOrBackup: '应用中的验证码或备用码',
    backupTitle: '备用码', backupHint: '手机丢失时每个备用码可使用一次。备用码只显示这一次，请妥善保存。',
    copyCodes: '复制备用码', copied: '备用码已复制', enabled: '两步验证已启用', disabled: '两步验证已关闭',
    codeRequired: '请输入验证码', cancel: '取消', confirm: '确认', done: '我已保存',
  },
  passkey: {
    title: 'Passkey', none: '尚未添加 Passkey：可以用指纹、面容或安全密钥代替密码登录。',
    off: '管理员未启用 Passkey。', add: '添加 Passkey', remove: '移除', removeAll: '移除全部 Passkey',
    added: 'Passkey 已添加', removed: 'Passkey 已移除', unsupported: '当前浏览器不支持 Passkey', cancelled: 'Passkey 验证已取消',
    created: '添加于 {{date}}', lastUsed: '最近使用 {{date}}', never: '从未使用',
  },
  bindings: { title: '已绑定账户', none: '没有绑定的账户。', unbind: '解绑', unbound: '已解绑', confirm: '确定解绑 {{name}}？' },
  checkin: {
    title: '每日签到', hint: '每天签到一次，奖励 {{min}} 到 {{max}}。', button: '签到', done: '今日已签到',
    reward: '签到成功：+{{amount}}', total: '累计签到 {{count}} 次，共获得 {{amount}}',
  },
};

registerNamespace('security', { en, zh });
