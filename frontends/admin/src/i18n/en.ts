import { customOAuthEn } from '../features/settings/custom-oauth/i18n';
import { settingsEn } from './settings.en';
import { redemptionsEn } from './redemptions.en';
import { channelsEn } from './channels.en';

export const en = {
  pages: { users: 'User management', channels: 'Channels', redemptions: 'Redemption codes', settings: 'System settings' },
  cancel: 'Cancel',
  close: 'Close',
  redemptions: redemptionsEn,
  settings: settingsEn,
  channels: channelsEn,
  submit: 'Submit',
  users: {
    title: 'User management',
    add: 'Add user',
    edit: 'Edit user',
    keyword: 'Search by ID, username, display name or email',
    group: 'Group',
    search: 'Search',
    required: 'username and password cannot be empty',
    created: 'User created',
    updated: 'User updated',
  },
  column: { username: 'Username', group: 'Group', stats: 'Statistics', invite: 'Invite info', role: 'Role', status: 'Status' },
  stats: { remaining: 'Remaining: {{value}}', used: 'Used: {{value}}', requests: 'Requests: {{value}}' },
  invite: { count: 'Invited: {{value}}', earnings: 'Invite earnings: {{value}}', inviter: 'Inviter: {{value}}', none: 'No inviter' },
  role: { user: 'Regular user', admin: 'Admin', root: 'Super admin', unknown: 'Unknown role' },
  status: { active: 'Active', banned: 'Banned', deregistered: 'Deregistered', unknown: 'Unknown status' },
  action: {
    promote: 'Promote',
    demote: 'Demote',
    disable: 'Disable',
    enable: 'Enable',
    edit: 'Edit',
    delete: 'Deregister',
    deleteConfirm: 'Deregister this user? This cannot be undone.',
  },
  field: {
    displayName: 'Display name',
    password: 'Password',
    passwordHint: 'at least 8 characters',
    passwordEditHint: 'leave empty to keep; at least 8 characters',
    quota: 'Quota',
    quotaAmount: 'Equals {{amount}}',
    remark: 'Remark (admins only)',
  },
  customOAuth: customOAuthEn,
};
