import type { NotifySettings } from './api';

/** The form's threshold when the user never saved one (spec 000 §9). */
export const DEFAULT_WARNING_THRESHOLD = 100_000;
export const THRESHOLD_PRESETS = [100_000, 500_000, 1_000_000, 5_000_000];

/** The saved `setting` JSON over the form defaults; a broken or foreign value falls back field by field. */
export function readNotifySettings(text: string | null | undefined): NotifySettings {
  let saved: Record<string, unknown> = {};
  try {
    const parsed: unknown = text ? JSON.parse(text) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) saved = parsed as Record<string, unknown>;
  } catch {
    // Keep the defaults.
  }
  const str = (key: string) => (typeof saved[key] === 'string' ? (saved[key] as string) : '');
  const threshold = Number(saved.quota_warning_threshold);
  return {
    notify_type: saved.notify_type === 'webhook' ? 'webhook' : 'email',
    quota_warning_threshold: Number.isFinite(threshold) && threshold > 0 ? threshold : DEFAULT_WARNING_THRESHOLD,
    webhook_url: str('webhook_url'),
    webhook_secret: str('webhook_secret'),
    notification_email: str('notification_email'),
    accept_unset_model_ratio_model: saved.accept_unset_model_ratio_model === true,
    record_ip_log: saved.record_ip_log === true,
  };
}

/** The first problem the form can see before asking the server; the server checks again. */
export function notifySettingsProblem(settings: NotifySettings): 'webhookRequired' | 'webhookHttps' | null {
  const url = settings.webhook_url.trim();
  if (settings.notify_type === 'webhook' && !url) return 'webhookRequired';
  if (url && !url.toLowerCase().startsWith('https://')) return 'webhookHttps';
  return null;
}
