import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, FormRow, Input, Space, Toast } from '@console/kit';
import { SideSheet } from '@console/kit/data';
import { usersApi, type NewUser } from '../api';

const EMPTY: NewUser = { username: '', display_name: '', password: '' };

export function AddUserDrawer({ visible, onClose, onCreated }: { visible: boolean; onClose(): void; onCreated(): void }) {
  const { t } = useTranslation('admin');
  const [user, setUser] = useState<NewUser>(EMPTY);
  const [saving, setSaving] = useState(false);
  const set = (key: keyof NewUser) => (value: string) => setUser((current) => ({ ...current, [key]: value }));

  const submit = async () => {
    if (!user.username || !user.password) return Toast.error(t('users.required'));
    setSaving(true);
    try {
      await usersApi.create({ ...user, display_name: user.display_name || user.username });
      Toast.success(t('users.created'));
      setUser(EMPTY);
      onCreated();
      onClose();
    } catch {
      // Already reported by the API client.
    } finally {
      setSaving(false);
    }
  };

  return (
    <SideSheet
      title={t('users.add')}
      visible={visible}
      onCancel={onClose}
      width={420}
      footer={
        <Space style={{ justifyContent: 'flex-end', width: '100%' }}>
          <Button onClick={onClose}>{t('cancel')}</Button>
          <Button theme="solid" loading={saving} onClick={() => void submit()} data-testid="add-user-submit">
            {t('submit')}
          </Button>
        </Space>
      }
    >
      <FormRow label={t('column.username')}>
        <Input value={user.username} onChange={set('username')} maxLength={12} data-testid="add-username" />
      </FormRow>
      <FormRow label={t('field.displayName')}>
        <Input value={user.display_name} onChange={set('display_name')} />
      </FormRow>
      <FormRow label={t('field.password')}>
        <Input
          mode="password"
          value={user.password}
          onChange={set('password')}
          placeholder={t('field.passwordHint')}
          data-testid="add-password"
        />
      </FormRow>
    </SideSheet>
  );
}
