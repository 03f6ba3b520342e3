export const redemptionsEn = {
  title: 'Redemption codes', add: 'Add redemption code', edit: 'Edit redemption code', keyword: 'Search by ID or name',
  removeInvalid: 'Delete invalid codes', count: 'Count', countHint: 'How many codes to create (1-100)',
  nameHint: 'Up to 20 characters; empty uses the quota', expiryHint: 'Empty never expires', never: 'Never',
  redeemedBy: 'User {{user}} at {{time}}', download: 'Download as text', copyAll: 'Copy all',
  keysTitle: '{{count}} redemption code(s) created', keysOnce: 'Keep these codes now: copy them or download them as a text file.',
  column: { name: 'Name', status: 'Status', quota: 'Quota', created: 'Created', expires: 'Expires', redeemedBy: 'Redeemed by' },
  status: { unused: 'Unused', disabled: 'Disabled', used: 'Used', expired: 'Expired' },
  action: { copy: 'Copy' },
  confirm: { delete: 'Delete this redemption code?', removeInvalid: 'Delete every used, disabled or expired code?' },
  error: { quota: 'quota must not be negative', count: 'count must be between 1 and 100', expiry: 'the expiry time must be in the future' },
  updated: 'Redemption code updated', enabled: 'Redemption code enabled', disabled: 'Redemption code disabled', deleted: 'Redemption code deleted',
  removedInvalid: '{{count}} invalid codes deleted',
};
