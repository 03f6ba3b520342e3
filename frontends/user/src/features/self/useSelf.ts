import { useCallback, useEffect, useState } from 'react';
import { api } from '@console/kit';

/** GET /api/user/self: the caller's profile, balance, invites and settings (never secrets). */
export interface SelfUser {
  id: number;
  username: string;
  display_name: string;
  role: number;
  status: number;
  email: string;
  github_id: string;
  oidc_id: string;
  wechat_id: string;
  telegram_id: string;
  linux_do_id: string;
  group: string;
  quota: number;
  used_quota: number;
  request_count: number;
  aff_code: string;
  aff_count: number;
  aff_quota: number;
  aff_history_quota: number;
  inviter_id: number;
  /** JSON text of the notification settings. */
  setting: string;
}

export const fetchSelf = () => api.get<SelfUser>('/api/user/self');

/** The caller as the server knows it now; `reload` after anything that changes the balance or profile. */
export function useSelf() {
  const [user, setUser] = useState<SelfUser | null>(null);
  const reload = useCallback(async () => {
    try {
      setUser(await fetchSelf());
    } catch {
      // The API client has shown the error.
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { user, reload };
}
