import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, FormRow, Input, Space, Toast, nowSeconds, renderQuota, toUnixSeconds } from '@console/kit';
import { DatePicker, FormSheet, InputNumber, useSaving } from '@console/kit/data';
import { redemptionsApi } from './api';

interface RedemptionForm {
  name: string;
  quota: number;
  count: number;
  /** Unix seconds; 0 = never expires. */
  expired_time: number;
}

/** spec 001 §9: quota presets and the defaults of a new code (quota 100000, count 1). */
const QUOTA_PRESETS = [500_000, 5_000_000, 25_000_000, 50_000_000, 250_000_000, 500_000_000];
const EMPTY: RedemptionForm = { name: '', quota: 100_000, count: 1, expired_time: 0 };

interface RedemptionDrawerProps {
  /** null = closed, 0 = create, otherwise the id being edited. */
  codeId: number | null;
  onClose(): void;
  onCreated(keys: string[]): void;
  onSaved(): void;
}

/** Creates codes (several at once) or edits an unused one: name, quota and expiry. */
export function RedemptionDrawer({ codeId, onClose, onCreated, onSaved }: RedemptionDrawerProps) {
  const { t } = useTranslation('admin');
  const creating = codeId === 0;
  const [form, setForm] = useState<RedemptionForm | null>(null);
  const [saving, whileSaving] = useSaving();

  useEffect(() => {
    setForm(null);
    if (codeId === null) return;
    if (codeId === 0) return setForm(EMPTY);
    redemptionsApi
      .get(codeId)
      .then((code) => setForm({ name: code.name, quota: code.quota, count: 1, expired_time: code.expired_time }), onClose);
  }, [codeId, onClose]);

  const set =
    <K extends keyof RedemptionForm>(key: K) =>
    (value: RedemptionForm[K]) =>
      setForm((current) => (current ? { ...current, [key]: value } : current));

  const submit = async () => {
    if (!form) return;
    if (!Number.isInteger(form.quota) || form.quota < 0) return Toast.error(t('redemptions.error.quota'));
    if (creating && (!Number.isInteger(form.count) || form.count < 1 || form.count > 100)) return Toast.error(t('redemptions.error.count'));
    if (form.expired_time && form.expired_time < nowSeconds()) return Toast.error(t('redemptions.error.expiry'));
    await whileSaving(async () => {
      if (creating) {
        // An empty name becomes the formatted quota on the server (spec 001 §5).
        const keys = await redemptionsApi.create({
          name: form.name.trim(),
          quota: form.quota,
          count: form.count,
          expired_time: form.expired_time,
        });
        onCreated(keys);
      } else {
        await redemptionsApi.update({
          id: codeId as number,
          name: form.name.trim() || renderQuota(form.quota),
          quota: form.quota,
          expired_time: form.expired_time,
        });
        Toast.success(t('redemptions.updated'));
      }
      onSaved();
      onClose();
    });
  };

  return (
    <FormSheet
      title={creating ? t('redemptions.add') : t('redemptions.edit')}
      visible={codeId !== null}
      onClose={onClose}
      width={440}
      ready={form !== null}
      saving={saving}
      onSubmit={() => void submit()}
      submitTestId="redemption-submit"
    >
      {form && (
        <>
          <FormRow label={t('redemptions.column.name')} hint={t('redemptions.nameHint')}>
            <Input value={form.name} onChange={set('name')} maxLength={20} data-testid="redemption-name" />
          </FormRow>
          <FormRow
            label={t('redemptions.column.quota')}
            hint={t('field.quotaAmount', { amount: renderQuota(form.quota) })}
            extra={
              <Space wrap spacing={4}>
                {QUOTA_PRESETS.map((quota) => (
                  <Button key={quota} size="small" onClick={() => set('quota')(quota)}>
                    {renderQuota(quota, 0)}
                  </Button>
                ))}
              </Space>
            }
          >
            <InputNumber
              value={form.quota}
              min={0}
              precision={0}
              step={100000}
              onChange={(value) => set('quota')(Number(value) || 0)}
              style={{ width: '100%' }}
              data-testid="redemption-quota"
            />
          </FormRow>
          {creating && (
            <FormRow label={t('redemptions.count')} hint={t('redemptions.countHint')}>
              <InputNumber
                value={form.count}
                min={1}
                max={100}
                precision={0}
                onChange={(value) => set('count')(Number(value) || 1)}
                style={{ width: '100%' }}
                data-testid="redemption-count"
              />
            </FormRow>
          )}
          <FormRow label={t('redemptions.column.expires')} hint={t('redemptions.expiryHint')}>
            <DatePicker
              type="dateTime"
              value={form.expired_time ? new Date(form.expired_time * 1000) : undefined}
              onChange={(value) => set('expired_time')(value instanceof Date ? toUnixSeconds(value) : 0)}
              style={{ width: '100%' }}
            />
          </FormRow>
        </>
      )}
    </FormSheet>
  );
}
