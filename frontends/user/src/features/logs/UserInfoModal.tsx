import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Modal, Spin, Typography, renderQuota } from '@console/kit';
import { logsApi, type LogUserInfo } from './api';

/** What an admin learns by clicking a username in the log list. */
export function UserInfoModal({ userId, onClose }: { userId: number | null; onClose(): void }) {
  const { t } = useTranslation('user');
  const [user, setUser] = useState<LogUserInfo | null>(null);
  useEffect(() => {
    setUser(null);
    if (userId === null) return;
    let live = true;
    logsApi.user(userId).then(
      (found) => live && setUser(found),
      () => live && onClose(),
    );
    return () => {
      live = false;
    };
  }, [userId, onClose]);

  const rows: [string, string | number][] = user
    ? [
        [t('logs.userInfo.username'), user.username],
        [t('logs.userInfo.displayName'), user.display_name || '-'],
        [t('logs.userInfo.group'), user.group],
        [t('logs.userInfo.balance'), renderQuota(user.quota)],
        [t('logs.userInfo.used'), renderQuota(user.used_quota)],
        [t('logs.userInfo.requests'), user.request_count],
        [t('logs.userInfo.email'), user.email || '-'],
      ]
    : [];
  return (
    <Modal title={t('logs.userInfo.title')} visible={userId !== null} onCancel={onClose} footer={null}>
      <Spin spinning={!user}>
        <div data-testid="log-user-info" style={{ minHeight: 80 }}>
          {rows.map(([label, value]) => (
            <Typography.Paragraph key={label} style={{ margin: '4px 0' }}>
              <Typography.Text strong>{label}: </Typography.Text>
              {value}
            </Typography.Paragraph>
          ))}
        </div>
      </Spin>
    </Modal>
  );
}
