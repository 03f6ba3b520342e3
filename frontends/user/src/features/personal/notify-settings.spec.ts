import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WARNING_THRESHOLD,
  SAVED_WARNING_THRESHOLD,
  notifySettingsProblem,
  readNotifySettings,
  settingsToSave,
} from './notify-settings';

describe('notification settings', () => {
  it('reads the saved JSON over the defaults and survives a broken value', () => {
    expect(readNotifySettings('{"notify_type":"webhook","quota_warning_threshold":500000,"webhook_url":"https://x.test/h"}')).toMatchObject(
      {
        notify_type: 'webhook',
        quota_warning_threshold: 500000,
        webhook_url: 'https://x.test/h',
        accept_unset_model_ratio_model: false,
        record_ip_log: false,
      },
    );
    // A save sends the whole form back: a setting the form did not show must survive it.
    expect(readNotifySettings('{"record_ip_log":true}').record_ip_log).toBe(true);
    expect(readNotifySettings('oops')).toMatchObject({ notify_type: 'email', quota_warning_threshold: DEFAULT_WARNING_THRESHOLD });
    expect(readNotifySettings('')).toMatchObject({ webhook_secret: '', notification_email: '', quota_warning_threshold: 100_000 });
    // Saved settings without a threshold show 500000, a user who never saved any 100000 (spec 000 §9).
    expect(readNotifySettings('{"notify_type":"email","has_webhook_secret":false}').quota_warning_threshold).toBe(500_000);
    expect([DEFAULT_WARNING_THRESHOLD, SAVED_WARNING_THRESHOLD]).toEqual([100_000, 500_000]);
  });

  it('never prefills the webhook secret: the server says one is saved, an empty field keeps it', () => {
    const saved = readNotifySettings('{"notify_type":"webhook","webhook_url":"https://x.test/h","has_webhook_secret":true}');
    expect(saved).toMatchObject({ webhook_secret: '', clear_webhook_secret: false, has_webhook_secret: true });
    // An older server that still sends the secret: the form knows one is saved but does not hold it.
    expect(readNotifySettings('{"webhook_secret":"old-secret"}')).toMatchObject({ webhook_secret: '', has_webhook_secret: true });
    expect(readNotifySettings('{}').has_webhook_secret).toBe(false);
    const body = settingsToSave({ ...saved, webhook_url: ' https://x.test/h ', clear_webhook_secret: true });
    expect(body).not.toHaveProperty('has_webhook_secret');
    expect(body).toMatchObject({ webhook_url: 'https://x.test/h', webhook_secret: '', clear_webhook_secret: true });
  });

  it('requires an https webhook URL', () => {
    const base = readNotifySettings('');
    expect(notifySettingsProblem({ ...base, notify_type: 'webhook' })).toBe('webhookRequired');
    expect(notifySettingsProblem({ ...base, notify_type: 'webhook', webhook_url: 'http://x.test' })).toBe('webhookHttps');
    expect(notifySettingsProblem({ ...base, notify_type: 'webhook', webhook_url: 'https://x.test' })).toBeNull();
    expect(notifySettingsProblem({ ...base, notify_type: 'email' })).toBeNull();
  });
});
