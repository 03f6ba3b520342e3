import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Card, Typography, useAuth } from '@console/kit';
import { PagedTable } from '@console/kit/data';
import { columnsFor, readColumnVisibility, writeColumnVisibility, type ColumnVisibility } from './column-prefs';
import { logColumns, toTableRows, visibleColumns } from './columns';
import { ColumnSettingsModal } from './ColumnSettingsModal';
import { LogsFilters } from './LogsFilters';
import { LogsStatsBar } from './LogsStatsBar';
import { UserInfoModal } from './UserInfoModal';
import { useLogStat, useLogsQuery } from './useLogsQuery';
import { useLogsTableState } from './useLogsTableState';

/** /log: the caller's usage (admins: everyone's), one server page at a time. */
export function LogsPage() {
  const { t } = useTranslation('user');
  const { isAdmin } = useAuth();
  const state = useLogsTableState();
  const query = useLogsQuery(isAdmin, state.page, state.pageSize, state.filters);
  const stat = useLogStat(isAdmin, state.filters);
  const [visibility, setVisibility] = useState<ColumnVisibility>(readColumnVisibility);
  const [columnsOpen, setColumnsOpen] = useState(false);
  const [userId, setUserId] = useState<number | null>(null);
  const closeUser = useCallback(() => setUserId(null), []);

  const allColumns = useMemo(() => logColumns(t, { showUser: setUserId }), [t]);
  const keys = columnsFor(isAdmin);
  const columns = visibleColumns(allColumns, keys, visibility);
  const rows = useMemo(() => toTableRows(query.rows), [query.rows]);

  const saveColumns = (next: ColumnVisibility) => {
    writeColumnVisibility(next);
    setVisibility(next);
    setColumnsOpen(false);
  };

  return (
    <Card title={t('logs.title')}>
      <LogsStatsBar stat={stat.stat} loading={stat.loading} />
      <LogsFilters admin={isAdmin} applied={state.filters} onApply={state.applyFilters} onOpenColumns={() => setColumnsOpen(true)} />
      {query.capped && (
        <Typography.Text type="tertiary" data-testid="logs-total-capped">
          {t('logs.totalCapped', { count: query.total })}
        </Typography.Text>
      )}
      <PagedTable data-testid="logs-table" columns={columns} query={{ ...query, rows }} paging={state} />
      <ColumnSettingsModal
        visible={columnsOpen}
        keys={keys}
        visibility={visibility}
        onSave={saveColumns}
        onClose={() => setColumnsOpen(false)}
      />
      <UserInfoModal userId={userId} onClose={closeUser} />
    </Card>
  );
}
