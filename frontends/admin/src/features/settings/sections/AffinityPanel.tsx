import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Space, Tag, Toast, Typography } from '@console/kit';
import { type AffinityCacheStats, optionsApi } from '../api';

/** What the panel reads of a stored rule (the server validated it; anything else reads as absent). */
interface RuleView {
  name?: string;
  model_regex?: string[];
  path_regex?: string[];
  key_sources?: { type?: string; key?: string; path?: string; nested_path?: string }[];
  ttl_seconds?: number;
  skip_retry_on_failure?: boolean;
  include_rule_name?: boolean;
}

function parseRules(text: string | undefined): RuleView[] {
  try {
    const value: unknown = JSON.parse(text ?? '[]');
    return Array.isArray(value) ? (value as RuleView[]) : [];
  } catch {
    return [];
  }
}

const sourceText = (s: NonNullable<RuleView['key_sources']>[number]) =>
  `${s.type}:${s.key || s.path || ''}${s.nested_path ? ` → ${s.nested_path}` : ''}`;

/**
 * The saved affinity rules at a glance, and the live pins (GET /api/option/channel_affinity_cache) with new-api's
 * clear-by-rule and clear-all actions.
 */
export function AffinityPanel({ storedRules, defaultTtl }: { storedRules: string | undefined; defaultTtl: number }) {
  const { t } = useTranslation('admin');
  const [stats, setStats] = useState<AffinityCacheStats | null>(null);
  const [busy, setBusy] = useState(false);
  const refresh = useCallback(() => optionsApi.affinityCache().then(setStats, () => undefined), []);
  useEffect(() => void refresh(), [refresh]);

  const clear = async (rule?: string) => {
    setBusy(true);
    try {
      const deleted = await optionsApi.clearAffinityCache(rule);
      Toast.success(t('settings.affinity.cleared', { count: deleted }));
      await refresh();
    } finally {
      setBusy(false);
    }
  };

  const rules = parseRules(storedRules);
  return (
    <div style={{ marginBottom: 14 }} data-testid="affinity-panel">
      <Space wrap style={{ marginBottom: 8 }}>
        <Typography.Text strong>{t('settings.affinity.pins')}</Typography.Text>
        {stats && (
          <>
            <Tag color="blue" data-testid="affinity-total">
              {t('settings.affinity.total', { count: stats.total, capacity: stats.cache_capacity })}
            </Tag>
            <Tag>{t(`settings.affinity.backend.${stats.backend}`)}</Tag>
            {stats.unknown > 0 && <Tag color="grey">{t('settings.affinity.unknown', { count: stats.unknown })}</Tag>}
          </>
        )}
        <Button size="small" onClick={() => void refresh()} data-testid="affinity-refresh">
          {t('settings.affinity.refresh')}
        </Button>
        <Button size="small" type="danger" loading={busy} onClick={() => void clear()} data-testid="affinity-clear-all">
          {t('settings.affinity.clearAll')}
        </Button>
      </Space>
      {rules.map((rule, i) => (
        <div key={`${rule.name}-${i}`} style={{ marginBottom: 6 }} data-testid={`affinity-rule-${i}`}>
          <Space wrap>
            <Typography.Text strong>{rule.name}</Typography.Text>
            {rule.include_rule_name && stats && (
              <Tag color="green" data-testid={`affinity-rule-pins-${i}`}>
                {t('settings.affinity.rulePins', { count: stats.by_rule_name[rule.name ?? ''] ?? 0 })}
              </Tag>
            )}
            <Typography.Text type="tertiary" size="small">
              {t('settings.affinity.ruleSummary', {
                models: (rule.model_regex ?? []).join(' | '),
                paths: (rule.path_regex ?? []).join(' | ') || '*',
                keys: (rule.key_sources ?? []).map(sourceText).join(', '),
                ttl: rule.ttl_seconds || defaultTtl,
              })}
            </Typography.Text>
            {rule.skip_retry_on_failure && <Tag size="small">{t('settings.affinity.noRetry')}</Tag>}
            {rule.include_rule_name && (
              <Button
                size="small"
                theme="borderless"
                disabled={busy}
                onClick={() => void clear(rule.name)}
                data-testid={`affinity-clear-${i}`}
              >
                {t('settings.affinity.clearRule')}
              </Button>
            )}
          </Space>
        </div>
      ))}
    </div>
  );
}
