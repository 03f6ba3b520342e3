/** The notification part of a user's `setting` JSON (PUT /api/user/setting). */
export interface NotifySetting {
  notify_type?: 'email' | 'webhook';
  quota_warning_threshold?: number;
  webhook_url?: string;
  webhook_secret?: string;
  notification_email?: string;
}

export function parseSetting(raw: string | null | undefined): NotifySetting {
  if (!raw) return {};
  try {
    const value = JSON.parse(raw) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as NotifySetting) : {};
  } catch {
    return {};
  }
}
