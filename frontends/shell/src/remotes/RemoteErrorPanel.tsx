import { useTranslation } from 'react-i18next';
import { Banner, Button, Typography, type RemoteName } from '@console/kit';

interface RemoteErrorPanelProps {
  remote: RemoteName;
  error: Error;
  onRetry(): void;
}

export function RemoteErrorPanel({ remote, error, onRetry }: RemoteErrorPanelProps) {
  const { t } = useTranslation('shell');
  return (
    <div style={{ padding: 24 }} data-testid="remote-error-panel">
      <Banner
        type="danger"
        fullMode={false}
        closeIcon={null}
        title={t('remote.failedTitle')}
        description={
          <>
            <Typography.Paragraph>{t('remote.failedDescription', { remote })}</Typography.Paragraph>
            <Typography.Text type="tertiary" size="small">
              {error.message}
            </Typography.Text>
          </>
        }
      />
      <Button style={{ marginTop: 16 }} theme="solid" onClick={onRetry}>
        {t('remote.retry')}
      </Button>
    </div>
  );
}
