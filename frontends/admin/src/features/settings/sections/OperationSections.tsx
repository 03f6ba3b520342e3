import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, isApiError, Space, Toast, Typography, toUnixSeconds } from '@console/kit';
import { DatePicker } from '@console/kit/data';
import { optionsApi } from '../api';
import { NumberField, Section, SelectField, SwitchField, TextAreaField, TextField } from '../fields';
import { optionLabel } from '../label';
import type { Settings } from '../useSettings';
import { AffinityPanel } from './AffinityPanel';
import { PerformancePanel } from './PerformancePanel';

const GENERAL = [
  'TopUpLink',
  'general_setting.docs_link',
  'QuotaPerUnit',
  'RetryTimes',
  'general_setting.quota_display_type',
  'DisplayInCurrencyEnabled',
  'DisplayTokenStatEnabled',
  'DefaultCollapseSidebar',
  'DemoSiteEnabled',
  'SelfUseModeEnabled',
] as const;
const DRAWING = [
  'DrawingEnabled',
  'MjNotifyEnabled',
  'MjAccountFilterEnabled',
  'MjForwardUrlEnabled',
  'MjModeClearEnabled',
  'MjActionCheckSuccessEnabled',
] as const;
const SENSITIVE = ['CheckSensitiveEnabled', 'CheckSensitiveOnPromptEnabled', 'SensitiveWords'] as const;
const LOG = ['LogConsumeEnabled', 'LogRetentionDays'] as const;
const DASHBOARD = ['DataExportEnabled', 'DataExportInterval', 'DataExportDefaultTime'] as const;
const MONITOR = [
  'ChannelDisableThreshold',
  'QuotaRemindThreshold',
  'AutomaticDisableChannelEnabled',
  'AutomaticEnableChannelEnabled',
  'AutomaticDisableKeywords',
  'AutomaticDisableStatusCodes',
  'AutomaticRetryStatusCodes',
  'ChannelDisableFailureCount',
  'ChannelDisableFailureWindowMinutes',
  'monitor_setting.auto_test_channel_enabled',
  'monitor_setting.auto_test_channel_minutes',
] as const;
const PERFORMANCE = [
  'performance_setting.monitor_enabled',
  'performance_setting.monitor_cpu_threshold',
  'performance_setting.monitor_memory_threshold',
  'performance_setting.monitor_disk_threshold',
] as const;
const AFFINITY_SWITCHES = ['channel_affinity_setting.enabled', 'channel_affinity_setting.switch_on_success'] as const;
const AFFINITY_NUMBERS = ['channel_affinity_setting.max_entries', 'channel_affinity_setting.default_ttl_seconds'] as const;
const AFFINITY = [...AFFINITY_SWITCHES, ...AFFINITY_NUMBERS, 'channel_affinity_setting.rules'] as const;
const QUOTA = ['QuotaForNewUser', 'PreConsumedQuota', 'QuotaForInviter', 'QuotaForInvitee'] as const;
const CHATS = ['Chats'] as const;

const switches = (settings: Settings, keys: readonly string[], t: ReturnType<typeof useTranslation<'admin'>>['t']) =>
  keys
    .filter((key) => key.endsWith('Enabled') || key.endsWith('_enabled'))
    .map((key) => <SwitchField key={key} settings={settings} name={key} label={optionLabel(t, key)} />);

const oneMonthAgo = () => {
  const date = new Date();
  date.setMonth(date.getMonth() - 1);
  return date;
};

/** Deletes log rows older than a chosen date (default one month ago) and says how many went. */
function LogCleanup() {
  const { t } = useTranslation('admin');
  const [before, setBefore] = useState<Date | null>(oneMonthAgo);
  const [busy, setBusy] = useState(false);
  const clean = async () => {
    if (!before) return Toast.error(t('settings.log.chooseTime'));
    setBusy(true);
    try {
      const count = await optionsApi.deleteLogsBefore(toUnixSeconds(before));
      Toast.success(t('settings.log.cleaned', { count }));
    } catch (error) {
      // A refusal (success:false) in the spec's words, with the server's reason; HTTP and network errors were shown by the client.
      if (isApiError(error) && error.status === 200) Toast.error(`${t('settings.log.cleanFailed')}: ${error.message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Space style={{ marginBottom: 14 }} wrap>
      <Typography.Text>{t('settings.log.cleanBefore')}</Typography.Text>
      <DatePicker type="dateTime" value={before ?? undefined} onChange={(value) => setBefore(value instanceof Date ? value : null)} />
      <Button type="danger" loading={busy} onClick={() => void clean()} data-testid="log-cleanup">
        {t('settings.log.clean')}
      </Button>
    </Space>
  );
}

/** The operation tab's option groups (spec 000 §2): general, drawing, sensitive words, logs, dashboard, monitoring, performance, channel affinity, quota, chat links. */
export function OperationSections({ settings }: { settings: Settings }) {
  const { t } = useTranslation('admin');
  const label = (key: string) => optionLabel(t, key);
  return (
    <>
      <Section title={t('settings.section.general')} settings={settings} keys={GENERAL} testId="section-general">
        <TextField settings={settings} name="TopUpLink" label={label('TopUpLink')} placeholder="https://" />
        <TextField settings={settings} name="general_setting.docs_link" label={label('general_setting.docs_link')} placeholder="https://" />
        <NumberField settings={settings} name="QuotaPerUnit" label={label('QuotaPerUnit')} hint={t('settings.hint.QuotaPerUnit')} />
        <NumberField settings={settings} name="RetryTimes" label={label('RetryTimes')} />
        <SelectField
          settings={settings}
          name="general_setting.quota_display_type"
          label={label('general_setting.quota_display_type')}
          options={['USD', 'CNY', 'TOKENS'].map((value) => ({ label: value, value }))}
        />
        {switches(settings, GENERAL, t)}
      </Section>
      <Section title={t('settings.section.quota')} settings={settings} keys={QUOTA}>
        {QUOTA.map((key) => (
          <NumberField key={key} settings={settings} name={key} label={label(key)} />
        ))}
      </Section>
      <Section title={t('settings.section.drawing')} settings={settings} keys={DRAWING}>
        {switches(settings, DRAWING, t)}
      </Section>
      <Section title={t('settings.section.sensitive')} settings={settings} keys={SENSITIVE}>
        {switches(settings, SENSITIVE, t)}
        <TextAreaField settings={settings} name="SensitiveWords" label={label('SensitiveWords')} hint={t('settings.hint.onePerLine')} />
      </Section>
      <Section title={t('settings.section.log')} settings={settings} keys={LOG}>
        {switches(settings, LOG, t)}
        <NumberField
          settings={settings}
          name="LogRetentionDays"
          label={label('LogRetentionDays')}
          hint={t('settings.hint.LogRetentionDays')}
        />
        <LogCleanup />
      </Section>
      <Section title={t('settings.section.dashboard')} settings={settings} keys={DASHBOARD}>
        {switches(settings, DASHBOARD, t)}
        <NumberField settings={settings} name="DataExportInterval" label={label('DataExportInterval')} />
        <SelectField
          settings={settings}
          name="DataExportDefaultTime"
          label={label('DataExportDefaultTime')}
          options={['hour', 'day', 'week'].map((value) => ({ label: t(`settings.granularity.${value}`), value }))}
        />
      </Section>
      <Section title={t('settings.section.monitor')} settings={settings} keys={MONITOR}>
        {switches(settings, MONITOR, t)}
        {MONITOR.filter((key) => !key.endsWith('Enabled') && !key.endsWith('_enabled') && !key.startsWith('Automatic')).map((key) => (
          <NumberField key={key} settings={settings} name={key} label={label(key)} />
        ))}
        <TextAreaField
          settings={settings}
          name="AutomaticDisableKeywords"
          label={label('AutomaticDisableKeywords')}
          hint={t('settings.hint.onePerLine')}
        />
        <TextField
          settings={settings}
          name="AutomaticDisableStatusCodes"
          label={label('AutomaticDisableStatusCodes')}
          hint={t('settings.hint.statusCodes')}
        />
        <TextField
          settings={settings}
          name="AutomaticRetryStatusCodes"
          label={label('AutomaticRetryStatusCodes')}
          hint={t('settings.hint.statusCodes')}
        />
      </Section>
      <Section title={t('settings.section.performance')} settings={settings} keys={PERFORMANCE} testId="section-performance">
        <Typography.Text type="tertiary" style={{ display: 'block', marginBottom: 8 }}>
          {t('settings.performance.hint')}
        </Typography.Text>
        <PerformancePanel
          thresholds={{
            cpu: Number(settings.stored['performance_setting.monitor_cpu_threshold'] ?? 0),
            memory: Number(settings.stored['performance_setting.monitor_memory_threshold'] ?? 0),
            disk: Number(settings.stored['performance_setting.monitor_disk_threshold'] ?? 0),
          }}
        />
        {switches(settings, PERFORMANCE, t)}
        {PERFORMANCE.filter((key) => !key.endsWith('_enabled')).map((key) => (
          <NumberField key={key} settings={settings} name={key} label={label(key)} />
        ))}
      </Section>
      <Section title={t('settings.section.affinity')} settings={settings} keys={AFFINITY} testId="section-affinity">
        <Typography.Text type="tertiary" style={{ display: 'block', marginBottom: 8 }}>
          {t('settings.affinity.hint')}
        </Typography.Text>
        <AffinityPanel settings={settings} defaultTtl={Number(settings.stored['channel_affinity_setting.default_ttl_seconds'] ?? 3600)} />
        {AFFINITY_SWITCHES.map((key) => (
          <SwitchField key={key} settings={settings} name={key} label={label(key)} />
        ))}
        {AFFINITY_NUMBERS.map((key) => (
          <NumberField key={key} settings={settings} name={key} label={label(key)} />
        ))}
        <TextAreaField
          settings={settings}
          name="channel_affinity_setting.rules"
          label={label('channel_affinity_setting.rules')}
          rows={10}
          hint={t('settings.hint.affinityRules')}
        />
      </Section>
      <Section title={t('settings.section.chats')} settings={settings} keys={CHATS}>
        <TextAreaField settings={settings} name="Chats" label={label('Chats')} rows={8} hint={t('settings.hint.Chats')} />
      </Section>
    </>
  );
}
