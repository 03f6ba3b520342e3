import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Card, Modal, Space, Toast, Typography, formatTimestamp, isApiError, useStatus } from '@console/kit';
import type { ReleaseCheckView } from '../../../contracts';
import { optionsApi } from '../api';

/** The gateway already drops any other scheme; checked again where the link is made. */
const isWebPage = (url: string) => /^https?:\/\//i.test(url);

/** A newer release: its name, date and notes (plain text: a feed's Markdown or HTML is never rendered) and its page. */
function ReleaseDialog({ release, onClose }: { release: ReleaseCheckView; onClose(): void }) {
  const { t } = useTranslation('admin');
  const published = Date.parse(release.published_at);
  return (
    <Modal
      visible
      title={t('settings.update.newTitle', { version: release.latest })}
      onCancel={onClose}
      width={640}
      footer={
        <Space>
          {isWebPage(release.url) && (
            <Typography.Text link={{ href: release.url, target: '_blank', rel: 'noopener noreferrer' }} data-testid="update-release-link">
              {t('settings.update.open')}
            </Typography.Text>
          )}
          <Button onClick={onClose}>{t('settings.update.close')}</Button>
        </Space>
      }
    >
      <div data-testid="update-dialog">
        <Typography.Title heading={5}>{release.name}</Typography.Title>
        {Number.isFinite(published) && (
          <Typography.Text type="tertiary" size="small">
            {t('settings.update.published', { time: formatTimestamp(Math.floor(published / 1000)) })}
          </Typography.Text>
        )}
        <Typography.Paragraph
          style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', maxHeight: 360, overflowY: 'auto', marginTop: 12 }}
          data-testid="update-notes"
        >
          {release.notes.trim() || t('settings.update.noNotes')}
        </Typography.Paragraph>
      </div>
    </Modal>
  );
}

/** Other tab: the running version and the update check, which asks the gateway (the console never calls the feed). */
export function VersionSection() {
  const { t } = useTranslation('admin');
  const { version } = useStatus();
  const [checking, setChecking] = useState(false);
  const [release, setRelease] = useState<ReleaseCheckView | null>(null);

  const check = async () => {
    setChecking(true);
    try {
      const result = await optionsApi.checkUpdate();
      if (result.newer) setRelease(result);
      else Toast.success(t('settings.update.latest', { version: result.current }));
    } catch (error) {
      // The server's reason in the spec's words; HTTP and network errors were shown by the client.
      if (isApiError(error) && error.status === 200) Toast.error(`${t('settings.update.failed')}: ${error.message}`);
    } finally {
      setChecking(false);
    }
  };

  return (
    <Card title={t('settings.section.version')} style={{ marginBottom: 16 }} data-testid="section-version">
      <Space>
        <Typography.Text>
          {t('settings.update.current')}: <Typography.Text strong>{version || t('settings.update.unknown')}</Typography.Text>
        </Typography.Text>
        <Button theme="solid" loading={checking} onClick={() => void check()} data-testid="check-update">
          {t('settings.update.check')}
        </Button>
      </Space>
      {release && <ReleaseDialog release={release} onClose={() => setRelease(null)} />}
    </Card>
  );
}
