import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, FormRow, Input, Space, Spin, Toast, renderQuota } from '@console/kit';
import { InputNumber, Select, SideSheet } from '@console/kit/data';
import { usersApi, type UserUpdate } from '../api';
import { UserSecurityPanel } from './UserSecurityPanel';

interface EditUserDrawerProps {
  userId: number | null;
  groups: string[];
  onClose(): void;
  onSaved(): void;
}

/** Group and quota are edited only here (spec 000 §6); the password is sent only when typed. */
export function EditUserDrawer({ userId, groups, onClose, onSaved }: EditUserDrawerProps) {
  const { t } = useTranslation('admin');
  const [form, setForm] = useState<UserUpdate | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    setForm(null);
    if (userId === null) return;
    usersApi.get(userId).then(
      (user) =>
        setForm({
          id: user.id,
          username: user.username,
          display_name: user.display_name,
          password: '',
          group: user.group,
          quota: user.quota,
          remark: user.remark ?? '',
        }),
      onClose,
    );
  }, [userId, onClose]);

  const set =
    <K extends keyof UserUpdate>(key: K) =>
    (value: UserUpdate[K]) =>
      setForm((current) => (current ? { ...current, [key]: value } : current));

  const submit = async () => {
    if (!form) return;
    setSaving(true);
    try {
      const { password, ...rest } = form;
      await usersApi.update({ ...rest, quota: Math.trunc(Number(form.quota) || 0), ...(password ? { password } : {}) });
      Toast.success(t('users.updated'));
      onSaved();
      onClose();
    } catch {
      // Already reported by the API client.
    } finally {
      setSaving(false);
    }
  };

  return (
    <SideSheet
      title={t('users.edit')}
      visible={userId !== null}
      onCancel={onClose}
      width={440}
      footer={
        <Space style={{ justifyContent: 'flex-end', width: '100%' }}>
          <Button onClick={onClose}>{t('cancel')}</Button>
          <Button theme="solid" loading={saving} disabled={!form} onClick={() => void submit()} data-testid="edit-user-submit">
            {t('submit')}
          </Button>
        </Space>
      }
    >
      {!form ? (
        <Spin />
      ) : (
        <>
          <FormRow label={t('column.username')}>
            <Input value={form.username} onChange={set('username')} data-testid="edit-username" />
          </FormRow>
          <FormRow label={t('field.displayName')}>
            <Input value={form.display_name} onChange={set('display_name')} data-testid="edit-display-name" />
          </FormRow>
          <FormRow label={t('field.password')}>
            <Input mode="password" value={form.password} onChange={set('password')} placeholder={t('field.passwordEditHint')} />
          </FormRow>
          <FormRow label={t('column.group')}>
            <Select
              value={form.group}
              onChange={(value) => set('group')(String(value))}
              optionList={groups.map((name) => ({ label: name, value: name }))}
              style={{ width: '100%' }}
              filter
              allowCreate
            />
          </FormRow>
          <FormRow label={t('field.quota')} hint={t('field.quotaAmount', { amount: renderQuota(Number(form.quota) || 0) })}>
            <InputNumber
              value={form.quota}
              onChange={(value) => set('quota')(Number(value) || 0)}
              step={500000}
              style={{ width: '100%' }}
              data-testid="edit-quota"
            />
          </FormRow>
          <FormRow label={t('field.remark')}>
            <Input value={form.remark} onChange={set('remark')} />
          </FormRow>
          <UserSecurityPanel
            userId={form.id}
            onDeleted={() => {
              onSaved();
              onClose();
            }}
          />
        </>
      )}
    </SideSheet>
  );
}
