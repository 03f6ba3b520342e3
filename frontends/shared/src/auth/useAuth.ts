import { useStore } from '../storage/store';
import { api } from '../api/client';
import { ROLE, clearStoredUser, storeUser, userStore, type StoredUser } from './user-store';

export interface Auth {
  user: StoredUser | null;
  isLoggedIn: boolean;
  isAdmin: boolean;
  isRoot: boolean;
  login(user: StoredUser): void;
  logout(): Promise<void>;
}

export async function logout(): Promise<void> {
  await api.get('/api/user/logout', { quiet: true }).catch(() => undefined);
  clearStoredUser();
}

/** The one source of truth for "who is logged in", shared by the shell and every remote. */
export function useAuth(): Auth {
  const user = useStore(userStore);
  const role = user?.role ?? ROLE.guest;
  return {
    user,
    isLoggedIn: user !== null,
    isAdmin: role >= ROLE.admin,
    isRoot: role >= ROLE.root,
    login: storeUser,
    logout,
  };
}
