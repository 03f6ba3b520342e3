import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Modal, Space, Tag, Toast, Typography } from '@console/kit';
import { type AffinityCacheStats, optionsApi } from '../api';
import type { Settings } from '../useSettings';
import type { AffinityRuleView } from './affinity-rule-form';

/** The rule editor loads when first opened: the settings page does not pay for it. */
const AffinityRuleModal = lazy(() => import('./AffinityRuleModal').then((m) => ({ default: m.AffinityRuleModal })));

const RULES = 'channel_affinity_setting.rules';

/** The stored rules (the server validated them; anything else reads as none). */
function parseRules(text: string | undefined): AffinityRuleView[] {
  try {
    const value: unknown = JSON.parse(text ?? '[]');
    return Array.isArray(value) ? (value as AffinityRuleView[]) : [];
  } catch {
    return [];
  }
}

const sourceText = (s: AffinityRuleView['key_sources'][number]) =>
  `${s.type}:${s.key || s.path || ''}${s.nested_path ? ` → ${s.nested_path}` : ''}`;

/**
 * The saved affinity rules, edited one at a time in a form (saved at once), and the live pins
 * (GET /api/option/channel_affinity_cache) with new-api's clear-by-rule and clear-all actions.
 */
export function AffinityPanel({ settings, defaultTtl }: { settings: Settings; defaultTtl: number }) {
  const { t } = useTranslation('admin');
  const [stats, setStats] = useState<AffinityCacheStats | null>(null);
  const [busy, setBusy] = useState(false);
  /** The rule being edited (its index), 'new' for an added one, or undefined when the editor is closed. */
  const [editing, setEditing] = useState<number | 'new' | undefined>();
  const [saving, setSaving] = useState(false);
  // The editor is loaded on first use, then kept mounted, so it closes with its own animation.
  const [editorLoaded, setEditorLoaded] = useState(false);
  const edit = (target: number | 'new') => {
    setEditorLoaded(true);
    setEditing(target);
  };
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

  const rules = parseRules(settings.stored[RULES]);
  const saveRules = async (next: AffinityRuleView[]) => {
    setSaving(true);
    try {
      return await settings.save([RULES], { [RULES]: JSON.stringify(next) });
    } finally {
      setSaving(false);
    }
  };
  const submitRule = async (rule: AffinityRuleView) => {
    const next = editing === 'new' || editing === undefined ? [...rules, rule] : rules.map((r, i) => (i === editing ? rule : r));
    if (await saveRules(next)) {
      setEditing(undefined);
      await refresh();
    }
  };
  const editingRule = typeof editing === 'number' ? rules[editing] : undefined;
  const confirmDelete = (index: number) =>
    Modal.confirm({
      title: t('settings.affinity.deleteConfirm', { name: rules[index]?.name }),
      okText: t('settings.affinity.deleteRule'),
      cancelText: t('cancel'),
      onOk: () => saveRules(rules.filter((_, j) => j !== index)),
    });
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
        <Button size="small" theme="solid" onClick={() => edit('new')} data-testid="affinity-add-rule">
          {t('settings.affinity.addRule')}
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
            <Button size="small" theme="borderless" onClick={() => edit(i)} data-testid={`affinity-edit-${i}`}>
              {t('settings.affinity.editRule')}
            </Button>
            <Button size="small" theme="borderless" type="danger" onClick={() => confirmDelete(i)} data-testid={`affinity-delete-${i}`}>
              {t('settings.affinity.deleteRule')}
            </Button>
          </Space>
        </div>
      ))}
      {editorLoaded && (
        <Suspense fallback={null}>
          <AffinityRuleModal
            rule={editingRule}
            otherNames={rules.filter((_, i) => i !== editing).map((r) => r.name)}
            visible={editing !== undefined}
            saving={saving}
            onSubmit={(rule) => void submitRule(rule)}
            onCancel={() => setEditing(undefined)}
          />
        </Suspense>
      )}
    </div>
  );
}
