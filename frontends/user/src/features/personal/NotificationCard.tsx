import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Card, FormRow, Input, Radio, RadioGroup, Space, Toast, renderQuota } from '@console/kit';
import { InputNumber, Switch } from '@console/kit/data';
import type { SelfUser } from '../self/useSelf';
import { personalApi, type NotifySettings } from './api';
import { type NotifyForm, THRESHOLD_PRESETS, notifySettingsProblem, readNotifySettings, settingsToSave } from './notify-settings';

/** Balance warnings (email or https webhook), their threshold, and whether unpriced models may be used. */
export function NotificationCard({ user, onSaved }: { user: SelfUser | null; onSaved(): void }) {
  const { t } = useTranslation('user');
  const [form, setForm] = useState<NotifyForm>(() => readNotifySettings(user?.setting));
  const [saving, setSaving] = useState(false);
  // The page shows the stored user first and reads it again: unsaved edits are kept when it arrives (a choice
  // made meanwhile, e.g. Webhook, was reset to the stored one), and the form follows the server once saved.
  const edited = useRef(false);
  useEffect(() => {
    if (!edited.current) setForm(readNotifySettings(user?.setting));
  }, [user?.setting]);
  const edit = (update: (current: NotifyForm) => NotifyForm) => {
    edited.current = true;
    setForm(update);
  };
  const set = <K extends keyof NotifyForm>(key: K, value: NotifyForm[K]) => edit((current) => ({ ...current, [key]: value }));

  const save = async () => {
    const problem = notifySettingsProblem(form);
    if (problem) return Toast.error(t(`personal.notify.${problem}`));
    setSaving(true);
    try {
      await personalApi.saveSettings(settingsToSave(form));
      Toast.success(t('personal.notify.saved'));
      edited.current = false;
      onSaved();
    } catch {
      Toast.error(t('personal.notify.failed'));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Card title={t('personal.notify.title')} style={{ marginBottom: 16 }}>
      <div data-testid="personal-notify">
        <FormRow label={t('personal.notify.type')}>
          <RadioGroup
            value={form.notify_type}
            onChange={(event) => set('notify_type', event.target.value as NotifySettings['notify_type'])}
          >
            <Radio value="email">{t('personal.notify.email')}</Radio>
            <Radio value="webhook">Webhook</Radio>
          </RadioGroup>
        </FormRow>
        <FormRow
          label={t('personal.notify.threshold')}
          hint={renderQuota(form.quota_warning_threshold)}
          extra={
            <Space wrap>
              {THRESHOLD_PRESETS.map((preset) => (
                <Button key={preset} size="small" onClick={() => set('quota_warning_threshold', preset)}>
                  {`${preset} (${renderQuota(preset)})`}
                </Button>
              ))}
            </Space>
          }
        >
          <InputNumber
            value={form.quota_warning_threshold}
            min={0}
            precision={0}
            onNumberChange={(value) => set('quota_warning_threshold', Number(value) || 0)}
            style={{ width: 240 }}
          />
        </FormRow>
        {form.notify_type === 'webhook' ? (
          <>
            <FormRow label={t('personal.notify.webhookUrl')} hint={t('personal.notify.webhookHint')}>
              <Input
                value={form.webhook_url}
                onChange={(value) => set('webhook_url', value)}
                placeholder="https://"
                data-testid="notify-webhook-url"
              />
            </FormRow>
            <FormRow
              label={t('personal.notify.webhookSecret')}
              hint={form.has_webhook_secret ? t('personal.notify.webhookSecretSaved') : undefined}
              extra={
                form.has_webhook_secret ? (
                  <Button
                    size="small"
                    type={form.clear_webhook_secret ? 'primary' : 'danger'}
                    onClick={() =>
                      edit((current) => ({ ...current, webhook_secret: '', clear_webhook_secret: !current.clear_webhook_secret }))
                    }
                    data-testid="notify-webhook-secret-clear"
                  >
                    {form.clear_webhook_secret ? t('personal.notify.webhookSecretKeep') : t('personal.notify.webhookSecretRemove')}
                  </Button>
                ) : undefined
              }
            >
              <Input
                mode="password"
                value={form.webhook_secret}
                disabled={form.clear_webhook_secret}
                placeholder={
                  form.clear_webhook_secret
                    ? t('personal.notify.webhookSecretRemoved')
                    : form.has_webhook_secret
                      ? t('personal.notify.webhookSecretKeptPlaceholder')
                      : undefined
                }
                onChange={(value) => set('webhook_secret', value)}
                data-testid="notify-webhook-secret"
              />
            </FormRow>
          </>
        ) : (
          <FormRow label={t('personal.notify.notificationEmail')} hint={t('personal.notify.emailHint')}>
            <Input value={form.notification_email} onChange={(value) => set('notification_email', value)} data-testid="notify-email" />
          </FormRow>
        )}
        <FormRow label={t('personal.notify.acceptUnpriced')} hint={t('personal.notify.acceptUnpricedHint')}>
          <Switch checked={form.accept_unset_model_ratio_model} onChange={(checked) => set('accept_unset_model_ratio_model', checked)} />
        </FormRow>
        <FormRow label={t('personal.notify.recordIp')} hint={t('personal.notify.recordIpHint')}>
          <Switch checked={form.record_ip_log} onChange={(checked) => set('record_ip_log', checked)} />
        </FormRow>
        <Button type="primary" theme="solid" loading={saving} onClick={() => void save()} data-testid="notify-save">
          {t('save')}
        </Button>
      </div>
    </Card>
  );
}
