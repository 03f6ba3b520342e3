import { api } from '@console/kit';

/** The notification settings kept in the user's `setting` JSON (PUT /api/user/setting). */
export interface NotifySettings {
  notify_type: 'email' | 'webhook';
  quota_warning_threshold: number;
  webhook_url: string;
  /** A new secret to save; empty keeps the saved one (the server never sends it back). */
  webhook_secret: string;
  /** Removes the saved secret on save. */
  clear_webhook_secret: boolean;
  notification_email: string;
  accept_unset_model_ratio_model: boolean;
  /** Keep the caller's IP address on their log rows. */
  record_ip_log: boolean;
}

export const personalApi = {
  models: () => api.get<string[]>('/api/user/models'),
  affCode: () => api.get<string>('/api/user/aff'),
  affTransfer: (quota: number) => api.post<unknown>('/api/user/aff_transfer', { quota }),
  /** Replaces the system access token and answers the new one. */
  resetAccessToken: () => api.get<string>('/api/user/token'),
  changePassword: (originalPassword: string, password: string) =>
    api.put<unknown>('/api/user/self', { original_password: originalPassword, password }),
  deleteSelf: () => api.delete<unknown>('/api/user/self'),
  saveSettings: (settings: NotifySettings) => api.put<unknown>('/api/user/setting', settings),
  sendEmailCode: (email: string) => api.get<unknown>('/api/verification', { query: { email } }),
  bindEmail: (email: string, code: string) => api.post<unknown>('/api/oauth/email/bind', { email, code }),
  bindWeChat: (code: string) => api.get<unknown>('/api/oauth/wechat/bind', { query: { code } }),
};
