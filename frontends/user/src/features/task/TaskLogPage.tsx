import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Card, readPageSize, useAuth, usePagedQuery, writePageSize } from '@console/kit';
import { PagedTable } from '@console/kit/data';
import { TASK_LOG_NS } from '../task-logs/i18n';
import { TextDialog } from '../task-logs/parts';
import { EMPTY_FILTERS, TaskFilters, type TaskFilterValues } from '../task-logs/TaskFilters';
import { fetchAllTasks, fetchOwnTasks } from './api';
import { taskColumns } from './columns';

/** The task log (/task): Suno and video tasks with filters, JSON detail and failure reasons. */
export function TaskLogPage() {
  const { t } = useTranslation(TASK_LOG_NS);
  const { isAdmin } = useAuth();
  const [page, setPage] = useState(1);
  const [pageSize, setPageSizeState] = useState(readPageSize);
  const [filters, setFilters] = useState<TaskFilterValues>(EMPTY_FILTERS);
  const [detail, setDetail] = useState<string | null>(null);
  const [failReason, setFailReason] = useState<string | null>(null);
  const query = usePagedQuery(isAdmin ? fetchAllTasks : fetchOwnTasks, page, pageSize, filters);
  const columns = useMemo(
    () => taskColumns(t, isAdmin, { showDetail: (row) => setDetail(JSON.stringify(row, null, 2)), showFailReason: setFailReason }),
    [t, isAdmin],
  );
  const paging = {
    page,
    pageSize,
    setPage,
    setPageSize: (size: number) => {
      writePageSize(size);
      setPageSizeState(size);
      setPage(1);
    },
  };

  return (
    <Card title={t('tasks.title')}>
      <TaskFilters
        admin={isAdmin}
        idLabel={t('filters.taskId')}
        onQuery={(values) => {
          setFilters(values);
          setPage(1);
        }}
      />
      <PagedTable data-testid="task-table" columns={columns} query={query} paging={paging} />
      <TextDialog title={t('tasks.detailTitle')} text={detail} onClose={() => setDetail(null)} testId="task-detail" />
      <TextDialog title={t('failReasonTitle')} text={failReason} onClose={() => setFailReason(null)} testId="fail-reason-text" />
    </Card>
  );
}
