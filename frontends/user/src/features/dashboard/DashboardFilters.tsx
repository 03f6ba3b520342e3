import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { IconSearch } from '@douyinfe/semi-icons';
import { Button, Input, Radio, RadioGroup, Space, Toast, useIsMobile } from '@console/kit';
import { DatePicker } from '@console/kit/data';
import { GRANULARITIES, type Granularity } from './aggregate';
import type { DashboardQuery } from './api';

/** new-api refuses a user's own range over one month; saying so before asking is kinder. */
const MAX_SELF_SPAN = 30 * 86_400;

interface DashboardFiltersProps {
  admin: boolean;
  query: DashboardQuery;
  granularity: Granularity;
  onQuery(query: DashboardQuery): void;
  onGranularity(granularity: Granularity): void;
}

export function DashboardFilters({ admin, query, granularity, onQuery, onGranularity }: DashboardFiltersProps) {
  const { t } = useTranslation('user');
  // Under 600 px the range picker takes the whole row instead of pushing the page sideways.
  const rangeWidth = useIsMobile() ? 'calc(100vw - 48px)' : 420;
  const [draft, setDraft] = useState(query);
  const apply = () => {
    if (!draft.start_timestamp || !draft.end_timestamp) return Toast.warning(t('dashboard.pickRange'));
    if (!admin && draft.end_timestamp - draft.start_timestamp > MAX_SELF_SPAN) return Toast.error(t('dashboard.spanTooLong'));
    onQuery({ ...draft, username: draft.username.trim() });
  };
  return (
    <Space wrap style={{ marginBottom: 16 }}>
      <DatePicker
        type="dateTimeRange"
        value={[new Date(draft.start_timestamp * 1000), new Date(draft.end_timestamp * 1000)]}
        onChange={(value) => {
          const [start, end] = Array.isArray(value) ? value : [];
          setDraft((current) => ({
            ...current,
            start_timestamp: start instanceof Date ? Math.floor(start.getTime() / 1000) : 0,
            end_timestamp: end instanceof Date ? Math.floor(end.getTime() / 1000) : 0,
          }));
        }}
        style={{ width: rangeWidth }}
      />
      <RadioGroup type="button" value={granularity} onChange={(event) => onGranularity(event.target.value as Granularity)}>
        {GRANULARITIES.map((value) => (
          <Radio key={value} value={value}>
            <span data-testid={`granularity-${value}`}>{t(`dashboard.granularity.${value}`)}</span>
          </Radio>
        ))}
      </RadioGroup>
      {admin && (
        <Input
          value={draft.username}
          onChange={(username) => setDraft((current) => ({ ...current, username }))}
          onEnterPress={apply}
          placeholder={t('dashboard.allUsers')}
          showClear
          style={{ width: 200 }}
          data-testid="dashboard-username"
        />
      )}
      <Button type="primary" icon={<IconSearch />} onClick={apply} data-testid="dashboard-query">
        {t('logs.query')}
      </Button>
    </Space>
  );
}
