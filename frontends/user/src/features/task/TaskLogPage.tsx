import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Card, readPageSize, useAuth, useLoadMoreQuery, writePageSize } from '@console/kit';
import { PagedTable } from '@console/kit/data';
import { TASK_LOG_NS } from '../task-logs/i18n';
import { TextDialog } from '../task-logs/parts';
import { EMPTY_FILTERS, TaskFilters, type TaskFilterValues } from '../task-logs/TaskFilters';
import { fetchAllTasks, fetchOwnTasks } from './api';
import { taskColumns } from './columns';

/**
 * The task log (/task): Suno and video tasks with filters, JSON detail and failure reasons. The server pages
 * from 0 without a total (spec 001): the rows loaded so far stay, and the next page is fetched when the user
 * reaches the last loaded one; a new query starts again from the first.
 */
export function TaskLogPage() {
  const { t } = useTranslation(TASK_LOG_NS);
  const { isAdmin } = useAuth();
  const [pageSize, setPageSizeState] = useState(readPageSize);
  const [filters, setFilters] = useState<TaskFilterValues>(EMPTY_FILTERS);
  const [detail, setDetail] = useState<string | null>(null);
  const [failReason, setFailReason] = useState<string | null>(null);
  const query = useLoadMoreQuery(isAdmin ? fetchAllTasks : fetchOwnTasks, pageSize, filters);
  const columns = useMemo(
    () => taskColumns(t, isAdmin, { showDetail: (row) => setDetail(JSON.stringify(row, null, 2)), showFailReason: setFailReason }),
    [t, isAdmin],
  );
  const paging = {
    page: query.page,
    pageSize,
    setPage: query.setPage,
    setPageSize: (size: number) => {
      writePageSize(size);
      setPageSizeState(size);
    },
  };
  // While more may follow, the pager's total is a guess: say how many rows are loaded instead.
  const start = query.rows.length ? (query.page - 1) * pageSize + 1 : 0;
  const end = start ? start + query.rows.length - 1 : 0;
  const pageText = query.more ? () => t('tasks.pageTextMore', { start, end, loaded: query.loadedCount }) : undefined;

  return (
    <Card title={t('tasks.title')}>
      <TaskFilters admin={isAdmin} idLabel={t('filters.taskId')} onQuery={(values) => setFilters({ ...values })} />
      <PagedTable data-testid="task-table" columns={columns} query={query} paging={paging} formatPageText={pageText} />
      <TextDialog title={t('tasks.detailTitle')} text={detail} onClose={() => setDetail(null)} testId="task-detail" />
      <TextDialog title={t('failReasonTitle')} text={failReason} onClose={() => setFailReason(null)} testId="fail-reason-text" />
    </Card>
  );
}
