import type { RemoteName } from '@console/kit';

export type Access = 'public' | 'user' | 'admin';

/** Console pages served by a remote. The shell owns the URLs; the remote owns what renders under each page. */
export interface RemoteRoute {
  path: string;
  remote: RemoteName;
  page: string;
  access: Access;
}

export const REMOTE_ROUTES: readonly RemoteRoute[] = [
  { path: '/channel/*', remote: 'admin', page: 'channels', access: 'admin' },
  { path: '/redemption/*', remote: 'admin', page: 'redemptions', access: 'admin' },
  { path: '/user/*', remote: 'admin', page: 'users', access: 'admin' },
  { path: '/setting/*', remote: 'admin', page: 'settings', access: 'user' },
  { path: '/token/*', remote: 'user', page: 'tokens', access: 'user' },
  { path: '/log/*', remote: 'user', page: 'logs', access: 'user' },
  { path: '/detail/*', remote: 'user', page: 'dashboard', access: 'user' },
  { path: '/midjourney/*', remote: 'user', page: 'drawing', access: 'user' },
  { path: '/task/*', remote: 'user', page: 'tasks', access: 'user' },
  { path: '/topup/*', remote: 'user', page: 'wallet', access: 'user' },
  { path: '/personal/*', remote: 'user', page: 'personal', access: 'user' },
  { path: '/playground/*', remote: 'playground', page: 'playground', access: 'user' },
  { path: '/chat/:id?', remote: 'playground', page: 'chat', access: 'user' },
  { path: '/chat2link/*', remote: 'playground', page: 'chat2link', access: 'user' },
];

/** Paths where the sidebar stays hidden (spec 001 §2 Layout). */
export function hidesSidebar(pathname: string): boolean {
  return pathname === '/' || pathname.startsWith('/chat') || pathname.startsWith('/setup');
}
