import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { IconSearch } from '@douyinfe/semi-icons';
import { Button, Input, Space, useIsMobile } from '@console/kit';
import { DatePicker, Select } from '@console/kit/data';
import { LOG_TYPE, type LogFilters } from './api';
import { defaultLogFilters } from './useLogsTableState';

interface LogsFiltersProps {
  admin: boolean;
  applied: LogFilters;
  onApply(filters: LogFilters): void;
  onOpenColumns(): void;
}

const TYPE_OPTIONS = [
  ['all', LOG_TYPE.all],
  ['topUp', LOG_TYPE.topUp],
  ['consume', LOG_TYPE.consume],
  ['manage', LOG_TYPE.manage],
  ['system', LOG_TYPE.system],
  ['error', LOG_TYPE.error],
  ['refund', LOG_TYPE.refund],
] as const;

const toDate = (seconds: number) => (seconds ? new Date(seconds * 1000) : undefined);
const toSeconds = (value: unknown) => (value instanceof Date ? Math.floor(value.getTime() / 1000) : 0);

/** The filter form; nothing is fetched until "Query" (or Enter), so typing does not fire a request per key. */
export function LogsFilters({ admin, applied, onApply, onOpenColumns }: LogsFiltersProps) {
  const { t } = useTranslation('user');
  // Under 600 px the range picker takes the whole row instead of pushing the page sideways.
  const rangeWidth = useIsMobile() ? 'calc(100vw - 48px)' : 420;
  const [draft, setDraft] = useState<LogFilters>(applied);
  const set = <K extends keyof LogFilters>(key: K, value: LogFilters[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const apply = () => onApply({ ...draft, channel: draft.channel.trim() });
  const reset = () => {
    const fresh = defaultLogFilters();
    setDraft(fresh);
    onApply(fresh);
  };
  const text = (key: 'token_name' | 'model_name' | 'group' | 'username' | 'channel', testId: string) => (
    <Input
      value={draft[key]}
      onChange={(value) => set(key, value)}
      onEnterPress={apply}
      placeholder={t(`logs.filter.${key}`)}
      showClear
      style={{ width: 160 }}
      data-testid={testId}
    />
  );

  return (
    <div data-testid="logs-filters">
      <Space wrap style={{ marginBottom: 12 }}>
        <DatePicker
          type="dateTimeRange"
          value={[toDate(draft.start_timestamp), toDate(draft.end_timestamp)].filter(Boolean) as Date[]}
          onChange={(value) => {
            const [start, end] = Array.isArray(value) ? value : [];
            setDraft((current) => ({ ...current, start_timestamp: toSeconds(start), end_timestamp: toSeconds(end) }));
          }}
          style={{ width: rangeWidth }}
        />
        <Select
          value={draft.type}
          onChange={(value) => set('type', Number(value))}
          style={{ width: 120 }}
          optionList={TYPE_OPTIONS.map(([key, value]) => ({ value, label: t(`logs.type.${key}`) }))}
        />
        {text('token_name', 'logs-token-name')}
        {text('model_name', 'logs-model-name')}
        {text('group', 'logs-group')}
        {admin && text('username', 'logs-username')}
        {admin && text('channel', 'logs-channel')}
        <Button type="primary" icon={<IconSearch />} onClick={apply} data-testid="logs-query">
          {t('logs.query')}
        </Button>
        <Button onClick={reset}>{t('logs.reset')}</Button>
        <Button onClick={onOpenColumns} data-testid="logs-columns-button">
          {t('logs.columnSettings')}
        </Button>
      </Space>
    </div>
  );
}
