import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { Banner, Button, Card, Input, Modal, Space, Toast, Typography, copyText, logout } from '@console/kit';
import type { SelfUser } from '../self/useSelf';
import { personalApi } from './api';

const MIN_PASSWORD = 8;

/** System access token, password change and account deletion. */
export function AccountCard({ user }: { user: SelfUser | null }) {
  const { t } = useTranslation('user');
  const navigate = useNavigate();
  const [accessToken, setAccessToken] = useState('');
  const [passwordOpen, setPasswordOpen] = useState(false);
  const [deleteOpen, setDeleteOpen] = useState(false);
  const [passwords, setPasswords] = useState({ original: '', next: '', confirm: '' });
  const [confirmName, setConfirmName] = useState('');

  const resetToken = async () => {
    try {
      const token = await personalApi.resetAccessToken();
      setAccessToken(token);
      await copyText(token, t('personal.account.tokenCopied'));
    } catch {
      // Shown by the API client.
    }
  };
  const changePassword = async () => {
    if (passwords.next.length < MIN_PASSWORD) return Toast.error(t('personal.account.passwordTooShort'));
    if (passwords.next !== passwords.confirm) return Toast.error(t('personal.account.passwordMismatch'));
    try {
      await personalApi.changePassword(passwords.original, passwords.next);
      Toast.success(t('personal.account.passwordChanged'));
      setPasswordOpen(false);
      setPasswords({ original: '', next: '', confirm: '' });
    } catch {
      // Shown by the API client.
    }
  };
  const deleteAccount = async () => {
    if (!user || confirmName !== user.username) return Toast.error(t('personal.account.deleteConfirmMismatch'));
    try {
      await personalApi.deleteSelf();
      Toast.success(t('personal.account.deleted'));
      await logout();
      navigate('/login');
    } catch {
      // Shown by the API client.
    }
  };
  const password = (key: keyof typeof passwords, label: string) => (
    <Input
      mode="password"
      value={passwords[key]}
      onChange={(value) => setPasswords((current) => ({ ...current, [key]: value }))}
      placeholder={label}
      data-testid={`password-${key}`}
    />
  );

  return (
    <Card title={t('personal.account.title')} style={{ marginBottom: 16 }}>
      <Space wrap>
        <Button onClick={() => void resetToken()} data-testid="access-token-reset">
          {t('personal.account.generateToken')}
        </Button>
        <Button onClick={() => setPasswordOpen(true)} data-testid="password-open">
          {t('personal.account.changePassword')}
        </Button>
        <Button type="danger" onClick={() => setDeleteOpen(true)} data-testid="delete-open">
          {t('personal.account.delete')}
        </Button>
      </Space>
      {accessToken && (
        <Typography.Paragraph copyable style={{ marginTop: 12, wordBreak: 'break-all' }}>
          <span data-testid="access-token">{accessToken}</span>
        </Typography.Paragraph>
      )}
      <Modal
        title={t('personal.account.changePassword')}
        visible={passwordOpen}
        onCancel={() => setPasswordOpen(false)}
        onOk={() => void changePassword()}
        okText={t('submit')}
        cancelText={t('cancel')}
      >
        <Space vertical align="start" style={{ width: '100%' }}>
          {password('original', t('personal.account.originalPassword'))}
          {password('next', t('personal.account.newPassword'))}
          {password('confirm', t('personal.account.confirmPassword'))}
        </Space>
      </Modal>
      <Modal
        title={t('personal.account.delete')}
        visible={deleteOpen}
        onCancel={() => setDeleteOpen(false)}
        onOk={() => void deleteAccount()}
        okText={t('personal.account.deleteOk')}
        okButtonProps={{ type: 'danger' }}
        cancelText={t('cancel')}
      >
        <Banner type="danger" closeIcon={null} description={t('personal.account.deleteWarning')} style={{ marginBottom: 12 }} />
        <Input
          value={confirmName}
          onChange={setConfirmName}
          placeholder={t('personal.account.deletePlaceholder', { username: user?.username ?? '' })}
          data-testid="delete-confirm-name"
        />
      </Modal>
    </Card>
  );
}
