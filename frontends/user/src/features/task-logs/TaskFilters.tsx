import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Input, Space } from '@console/kit';
import { DatePicker } from '@console/kit/data';
import { TASK_LOG_NS } from './i18n';

export interface TaskFilterValues {
  channelId: string;
  id: string;
  /** Unix seconds; undefined = not set. */
  start?: number;
  end?: number;
}

export const EMPTY_FILTERS: TaskFilterValues = { channelId: '', id: '' };

function toSeconds(value: unknown): number | undefined {
  const date = value instanceof Date ? value : typeof value === 'string' && value ? new Date(value) : undefined;
  const ms = date?.getTime();
  return ms !== undefined && Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

/** Channel ID (admins only), task ID, start and end datetime, and the query button. */
export function TaskFilters({ admin, idLabel, onQuery }: { admin: boolean; idLabel: string; onQuery(values: TaskFilterValues): void }) {
  const { t } = useTranslation(TASK_LOG_NS);
  const [values, setValues] = useState<TaskFilterValues>(EMPTY_FILTERS);
  const set = (patch: Partial<TaskFilterValues>) => setValues((current) => ({ ...current, ...patch }));
  return (
    <Space wrap style={{ marginBottom: 16 }}>
      {admin && (
        <Input
          data-testid="filter-channel"
          placeholder={t('filters.channelId')}
          value={values.channelId}
          onChange={(v) => set({ channelId: v.replace(/\D/g, '') })}
          style={{ width: 140 }}
          showClear
        />
      )}
      <Input
        data-testid="filter-id"
        placeholder={idLabel}
        value={values.id}
        onChange={(v) => set({ id: v.trim() })}
        style={{ width: 240 }}
        showClear
      />
      <DatePicker type="dateTime" placeholder={t('filters.start')} onChange={(date) => set({ start: toSeconds(date) })} />
      <DatePicker type="dateTime" placeholder={t('filters.end')} onChange={(date) => set({ end: toSeconds(date) })} />
      <Button data-testid="filter-query" type="primary" onClick={() => onQuery(values)}>
        {t('filters.query')}
      </Button>
    </Space>
  );
}
