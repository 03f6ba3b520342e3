import type { SiteStatus } from '@console/kit';

export interface SidebarItem {
  key: string;
  path: string;
  /** Translation key in the shell namespace. */
  label: string;
  icon:
    | 'playground'
    | 'chat'
    | 'dashboard'
    | 'token'
    | 'log'
    | 'drawing'
    | 'task'
    | 'channel'
    | 'redemption'
    | 'user'
    | 'setting'
    | 'wallet'
    | 'personal';
  adminOnly?: boolean;
  /** A status flag that must be true for the entry to show. */
  flag?: keyof Pick<SiteStatus, 'enable_data_export' | 'enable_drawing' | 'enable_task'>;
}

export interface SidebarSection {
  key: string;
  title?: string;
  items: SidebarItem[];
}

export const SIDEBAR_SECTIONS: readonly SidebarSection[] = [
  {
    key: 'chat',
    items: [
      { key: 'playground', path: '/playground', label: 'nav.playground', icon: 'playground' },
      { key: 'chat', path: '/chat', label: 'nav.chat', icon: 'chat' },
    ],
  },
  {
    key: 'console',
    title: 'nav.section.console',
    items: [
      { key: 'detail', path: '/detail', label: 'nav.dashboard', icon: 'dashboard', flag: 'enable_data_export' },
      { key: 'token', path: '/token', label: 'nav.tokens', icon: 'token' },
      { key: 'log', path: '/log', label: 'nav.logs', icon: 'log' },
      { key: 'midjourney', path: '/midjourney', label: 'nav.drawing', icon: 'drawing', flag: 'enable_drawing' },
      { key: 'task', path: '/task', label: 'nav.tasks', icon: 'task', flag: 'enable_task' },
    ],
  },
  {
    key: 'admin',
    title: 'nav.section.admin',
    items: [
      { key: 'channel', path: '/channel', label: 'nav.channels', icon: 'channel', adminOnly: true },
      { key: 'redemption', path: '/redemption', label: 'nav.redemptions', icon: 'redemption', adminOnly: true },
      { key: 'user', path: '/user', label: 'nav.users', icon: 'user' },
      { key: 'setting', path: '/setting', label: 'nav.settings', icon: 'setting' },
    ],
  },
  {
    key: 'personal',
    title: 'nav.section.personal',
    items: [
      { key: 'topup', path: '/topup', label: 'nav.wallet', icon: 'wallet' },
      { key: 'personal', path: '/personal', label: 'nav.personal', icon: 'personal' },
    ],
  },
];

export function visibleSections(status: Partial<SiteStatus>, isAdmin: boolean): SidebarSection[] {
  return SIDEBAR_SECTIONS.map((section) => ({
    ...section,
    items: section.items.filter((item) => (!item.adminOnly || isAdmin) && (!item.flag || status[item.flag] === true)),
  })).filter((section) => section.items.length > 0);
}
