import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Button, Space, Typography, useAuth, useStatus } from '@console/kit';
import { AdminContent } from '../../components/AdminContent';

function DefaultHome() {
  const { t } = useTranslation('shell');
  const navigate = useNavigate();
  const { isLoggedIn } = useAuth();
  const status = useStatus();
  return (
    <div style={{ padding: '96px 24px', textAlign: 'center' }}>
      <Typography.Title heading={1}>{status.system_name || t('defaultSystemName')}</Typography.Title>
      <Typography.Paragraph type="tertiary" style={{ fontSize: 16, margin: '16px 0 32px' }}>
        {t('home.tagline')}
      </Typography.Paragraph>
      <Space>
        <Button theme="solid" size="large" onClick={() => navigate(isLoggedIn ? '/token' : '/login')}>
          {t('home.start')}
        </Button>
        <Button size="large" onClick={() => navigate('/pricing')}>
          {t('nav.pricing')}
        </Button>
      </Space>
      {status.server_address && (
        <Typography.Paragraph style={{ marginTop: 32 }} copyable={{ content: status.server_address }}>
          {t('home.baseUrl')}: {status.server_address}
        </Typography.Paragraph>
      )}
    </div>
  );
}

export function HomePage() {
  const { t } = useTranslation('shell');
  return <AdminContent endpoint="/api/home_page_content" title={t('nav.home')} fallback={<DefaultHome />} />;
}
