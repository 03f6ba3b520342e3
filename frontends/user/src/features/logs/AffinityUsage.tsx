import { useState } from 'react';
import type { TFunction } from 'i18next';
import { Button, formatTimestamp, Modal, Spin, Typography } from '@console/kit';
import { type AffinityUsage, logsApi } from './api';
import { cacheHitRate, type ChannelAffinityInfo } from './log-other';

/** Admins: a button on a log row sent by channel affinity, opening the key's usage and cache hits over its window. */
export function AffinityUsageButton({ info, t }: { info: ChannelAffinityInfo; t: TFunction<'user'> }) {
  const [usage, setUsage] = useState<AffinityUsage | null>(null);
  const [open, setOpen] = useState(false);
  const show = async () => {
    setOpen(true);
    setUsage(null);
    setUsage(await logsApi.affinityUsage(info.rule_name ?? '', info.using_group ?? '', info.key_fp ?? '').catch(() => null));
  };
  const line = (label: string, value: string | number) => (
    <Typography.Paragraph style={{ margin: 0 }}>
      <Typography.Text type="tertiary">{label}: </Typography.Text>
      {value}
    </Typography.Paragraph>
  );
  return (
    <>
      <Button size="small" theme="borderless" onClick={() => void show()} data-testid={`affinity-usage-${info.key_fp}`}>
        {t('logs.affinityUsage.open')}
      </Button>
      <Modal title={t('logs.affinityUsage.title')} visible={open} onCancel={() => setOpen(false)} footer={null}>
        {!usage ? (
          <Spin />
        ) : (
          <div data-testid="affinity-usage">
            {line(t('logs.affinityUsage.rule'), usage.rule_name)}
            {line(t('logs.affinityUsage.group'), usage.using_group || '-')}
            {line(t('logs.affinityUsage.key'), `${info.key_hint ?? '-'} (${usage.key_fp})`)}
            {usage.total === 0 ? (
              <Typography.Paragraph type="tertiary">{t('logs.affinityUsage.none')}</Typography.Paragraph>
            ) : (
              <>
                {line(t('logs.affinityUsage.requests'), t('logs.affinityUsage.hits', { hit: usage.hit, total: usage.total }))}
                {line(
                  t('logs.affinityUsage.tokens'),
                  t('logs.affinityUsage.tokenCounts', {
                    prompt: usage.prompt_tokens,
                    completion: usage.completion_tokens,
                    cached: usage.cached_tokens,
                  }),
                )}
                {line(t('logs.affinityUsage.rate'), `${(cacheHitRate(usage) * 100).toFixed(1)}%`)}
                {line(t('logs.affinityUsage.window'), t('logs.affinityUsage.seconds', { count: usage.window_seconds }))}
                {line(t('logs.affinityUsage.lastSeen'), formatTimestamp(usage.last_seen_at))}
              </>
            )}
          </div>
        )}
      </Modal>
    </>
  );
}
