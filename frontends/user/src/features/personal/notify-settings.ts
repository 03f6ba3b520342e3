import type { NotifySettings } from './api';

/** The form: what is saved, plus whether a webhook secret is saved (GET /api/user/self says so instead of sending it). */
export interface NotifyForm extends NotifySettings {
  has_webhook_secret: boolean;
}

/** The form's threshold for a user who never saved settings (spec 000 §9). */
export const DEFAULT_WARNING_THRESHOLD = 100_000;
/** The threshold of saved settings that name none (spec 000 §9: "500000 from saved settings"). */
export const SAVED_WARNING_THRESHOLD = 500_000;
export const THRESHOLD_PRESETS = [100_000, 500_000, 1_000_000, 5_000_000];

/** The saved `setting` JSON over the form defaults; a broken or foreign value falls back field by field. */
export function readNotifySettings(text: string | null | undefined): NotifyForm {
  let saved: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) saved = parsed as Record<string, unknown>;
  } catch {
    // Keep the defaults.
  }
  const fallbackThreshold = saved ? SAVED_WARNING_THRESHOLD : DEFAULT_WARNING_THRESHOLD;
  saved ??= {};
  const str = (key: string) => (typeof saved[key] === 'string' ? (saved[key] as string) : '');
  const threshold = Number(saved.quota_warning_threshold);
  return {
    notify_type: saved.notify_type === 'webhook' ? 'webhook' : 'email',
    quota_warning_threshold: Number.isFinite(threshold) && threshold > 0 ? threshold : fallbackThreshold,
    webhook_url: str('webhook_url'),
    // Never prefilled: a new secret replaces the saved one, an empty field keeps it.
    webhook_secret: '',
    clear_webhook_secret: false,
    has_webhook_secret: saved.has_webhook_secret === true || str('webhook_secret') !== '',
    notification_email: str('notification_email'),
    accept_unset_model_ratio_model: saved.accept_unset_model_ratio_model === true,
    record_ip_log: saved.record_ip_log === true,
  };
}

/** What PUT /api/user/setting takes from the form (trimmed; the saved-secret flag is the server's to say). */
export function settingsToSave({ has_webhook_secret: _saved, ...settings }: NotifyForm): NotifySettings {
  return { ...settings, webhook_url: settings.webhook_url.trim(), notification_email: settings.notification_email.trim() };
}

/** The first problem the form can see before asking the server; the server checks again. */
export function notifySettingsProblem(settings: NotifySettings): 'webhookRequired' | 'webhookHttps' | null {
  const url = settings.webhook_url.trim();
  if (settings.notify_type === 'webhook' && !url) return 'webhookRequired';
  if (url && !url.toLowerCase().startsWith('https://')) return 'webhookHttps';
  return null;
}
