import { createStore } from '../storage/store';
import { STORAGE_KEYS, readJson, writeJson } from '../storage/keys';

export const ROLE = { guest: 0, user: 1, admin: 10, root: 100 } as const;

/** What login stores locally (new-api's `user` key), enough to draw the console and send New-Api-User. */
export interface StoredUser {
  id: number;
  username: string;
  display_name?: string;
  role: number;
  status?: number;
  group?: string;
}

export const userStore = createStore<StoredUser | null>(readJson<StoredUser>(STORAGE_KEYS.user));

export function storeUser(user: StoredUser): void {
  writeJson(STORAGE_KEYS.user, user);
  userStore.set(user);
}

export function clearStoredUser(): void {
  localStorage.removeItem(STORAGE_KEYS.user);
  userStore.set(null);
}
