import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, FormRow, Input, Space, Spin, Toast, renderQuota, useStatus } from '@console/kit';
import { DatePicker, InputNumber, Select, SideSheet, Switch, TextArea } from '@console/kit/data';
import { tokensApi } from '../api';
import type { TokenDrawer } from '../useTokensTableState';
import { useTokenFormOptions } from './useTokenFormOptions';
import {
  AUTO_GROUP,
  BATCH_COUNTS,
  EXPIRY_SHORTCUTS,
  NEW_TOKEN,
  QUOTA_PRESETS,
  batchInputs,
  expiryFromShortcut,
  formFromToken,
  toInput,
  validate,
  type TokenForm,
} from './token-form';

interface EditTokenDrawerProps {
  drawer: TokenDrawer;
  onClose(): void;
  onSaved(): void;
}

export function EditTokenDrawer({ drawer, onClose, onSaved }: EditTokenDrawerProps) {
  const { t } = useTranslation('user');
  const creating = drawer === 'new';
  const [form, setForm] = useState<TokenForm | null>(null);
  const [saving, setSaving] = useState(false);
  const options = useTokenFormOptions(drawer !== null);
  const defaultAuto = useStatus().default_use_auto_group === true;
  const autoListed = Object.hasOwn(options.groups, AUTO_GROUP);
  const set =
    <K extends keyof TokenForm>(key: K) =>
    (value: TokenForm[K]) =>
      setForm((current) => (current ? { ...current, [key]: value } : current));

  useEffect(() => {
    if (drawer === null) return setForm(null);
    if (drawer === 'new') return setForm(NEW_TOKEN);
    tokensApi.get(drawer).then((token) => setForm(formFromToken(token)), onClose);
  }, [drawer, onClose]);

  const submit = async () => {
    if (!form) return;
    const problem = validate(form, creating);
    if (problem) return Toast.error(t(`tokens.form.${problem}`));
    setSaving(true);
    try {
      if (creating) {
        // One at a time: the first failure stops the batch and has already been shown.
        for (const input of batchInputs(form)) await tokensApi.create(input);
      } else {
        await tokensApi.update({ ...toInput(form), id: drawer as number });
      }
      Toast.success(t(creating ? 'tokens.created' : 'tokens.updated'));
      onSaved();
      onClose();
    } catch {
      // Already reported by the API client.
    } finally {
      setSaving(false);
    }
  };

  // A new token starts in `auto` when DefaultUseAutoGroup is on and the groups list offers it (new-api's console).
  const preselected = useRef(false);
  useEffect(() => {
    if (drawer === null) preselected.current = false;
  }, [drawer]);
  useEffect(() => {
    if (!creating || !defaultAuto || !autoListed || !form || preselected.current) return;
    preselected.current = true;
    if (form.group === '') setForm({ ...form, group: AUTO_GROUP });
  }, [creating, defaultAuto, autoListed, form]);

  const groupOptions = Object.entries(options.groups)
    .map(([name, info]) => ({
      value: name,
      label: name === AUTO_GROUP ? `${name} · ${info.desc} (${t('tokens.form.autoGroup')})` : `${name} · ${info.desc} (${info.ratio})`,
    }))
    // With DefaultUseAutoGroup on, `auto` is listed first.
    .sort((a, b) => (defaultAuto ? Number(b.value === AUTO_GROUP) - Number(a.value === AUTO_GROUP) : 0));

  return (
    <SideSheet
      title={t(creating ? 'tokens.create' : 'tokens.editTitle')}
      visible={drawer !== null}
      onCancel={onClose}
      width={480}
      footer={
        <Space style={{ justifyContent: 'flex-end', width: '100%' }}>
          <Button onClick={onClose}>{t('cancel')}</Button>
          <Button theme="solid" loading={saving} disabled={!form} onClick={() => void submit()} data-testid="token-submit">
            {t('submit')}
          </Button>
        </Space>
      }
    >
      {!form ? (
        <Spin />
      ) : (
        <>
          <FormRow label={t('tokens.column.name')}>
            <Input value={form.name} onChange={set('name')} maxLength={50} data-testid="token-name" />
          </FormRow>
          <FormRow label={t('tokens.column.group')}>
            <Select
              value={form.group || undefined}
              onChange={(value) => set('group')(String(value ?? ''))}
              optionList={groupOptions}
              placeholder={t('tokens.userGroup')}
              showClear
              style={{ width: '100%' }}
            />
          </FormRow>
          {form.group === AUTO_GROUP && (
            <FormRow label={t('tokens.form.crossGroupRetry')} extra={t('tokens.form.crossGroupRetryHint')}>
              <Switch
                checked={form.crossGroupRetry}
                onChange={set('crossGroupRetry')}
                aria-label={t('tokens.form.crossGroupRetry')}
                data-testid="token-cross-group-retry"
              />
            </FormRow>
          )}
          <FormRow
            label={t('tokens.column.expires')}
            extra={
              <Space wrap>
                {EXPIRY_SHORTCUTS.map((shortcut) => (
                  <Button key={shortcut.key} size="small" onClick={() => set('expiresAt')(expiryFromShortcut(shortcut.seconds))}>
                    {t(`tokens.form.expiry.${shortcut.key}`)}
                  </Button>
                ))}
              </Space>
            }
          >
            <DatePicker
              type="dateTime"
              value={form.expiresAt ?? undefined}
              placeholder={t('tokens.never')}
              onChange={(value) => set('expiresAt')(value instanceof Date ? value : value ? new Date(String(value)) : null)}
              style={{ width: '100%' }}
            />
          </FormRow>
          <FormRow
            label={t('tokens.form.quota', { amount: renderQuota(form.remainQuota) })}
            extra={
              <Space wrap>
                {QUOTA_PRESETS.map((quota) => (
                  <Button key={quota} size="small" disabled={form.unlimited} onClick={() => set('remainQuota')(quota)}>
                    {renderQuota(quota)}
                  </Button>
                ))}
              </Space>
            }
          >
            <Space>
              <InputNumber
                value={form.remainQuota}
                disabled={form.unlimited}
                min={0}
                step={500_000}
                onChange={(value) => set('remainQuota')(Number(value) || 0)}
                style={{ width: 220 }}
              />
              <Switch checked={form.unlimited} onChange={set('unlimited')} aria-label={t('tokens.unlimited')} />
              {t('tokens.unlimited')}
            </Space>
          </FormRow>
          {creating && (
            <FormRow
              label={t('tokens.form.count')}
              extra={
                <Space wrap>
                  {BATCH_COUNTS.map((count) => (
                    <Button key={count} size="small" onClick={() => set('count')(count)}>
                      {count}
                    </Button>
                  ))}
                </Space>
              }
            >
              <InputNumber
                value={form.count}
                min={1}
                precision={0}
                onChange={(value) => set('count')(Number(value))}
                style={{ width: 220 }}
              />
            </FormRow>
          )}
          <FormRow label={t('tokens.form.modelLimits')}>
            <Select
              multiple
              filter
              value={form.modelLimits}
              onChange={(value) => set('modelLimits')((value as string[]) ?? [])}
              optionList={options.models.map((m) => ({ value: m, label: m }))}
              placeholder={t('tokens.form.allModels')}
              style={{ width: '100%' }}
            />
          </FormRow>
          <FormRow label={t('tokens.form.allowIps')}>
            <TextArea value={form.allowIps} onChange={set('allowIps')} placeholder={t('tokens.form.allowIpsHint')} autosize rows={2} />
          </FormRow>
        </>
      )}
    </SideSheet>
  );
}
