import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Banner, Card, Modal, readPageSize, useAuth, usePagedQuery, useStatus, writePageSize } from '@console/kit';
import { PagedTable } from '@console/kit/data';
import { TASK_LOG_NS } from '../task-logs/i18n';
import { TextDialog } from '../task-logs/parts';
import { EMPTY_FILTERS, TaskFilters, type TaskFilterValues } from '../task-logs/TaskFilters';
import { fetchAllDrawings, fetchOwnDrawings } from './api';
import { drawingColumns } from './columns';

/** The drawing log (/midjourney): Midjourney tasks with filters, image preview and failure reasons. */
export function DrawingLogPage() {
  const { t } = useTranslation(TASK_LOG_NS);
  const { isAdmin } = useAuth();
  const status = useStatus();
  const [page, setPage] = useState(1);
  const [pageSize, setPageSizeState] = useState(readPageSize);
  const [filters, setFilters] = useState<TaskFilterValues>(EMPTY_FILTERS);
  const [image, setImage] = useState<string | null>(null);
  const [failReason, setFailReason] = useState<string | null>(null);
  const query = usePagedQuery(isAdmin ? fetchAllDrawings : fetchOwnDrawings, page, pageSize, filters);
  const columns = useMemo(() => drawingColumns(t, isAdmin, { showImage: setImage, showFailReason: setFailReason }), [t, isAdmin]);
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
    <Card title={t('drawing.title')}>
      {isAdmin && !status?.mj_notify_enabled && (
        <Banner
          data-testid="callback-notice"
          type="info"
          closeIcon={null}
          description={t('drawing.callbackNotice')}
          style={{ marginBottom: 16 }}
        />
      )}
      <TaskFilters
        admin={isAdmin}
        idLabel={t('filters.mjId')}
        onQuery={(values) => {
          setFilters(values);
          setPage(1);
        }}
      />
      <PagedTable data-testid="drawing-table" columns={columns} query={query} paging={paging} />
      <Modal title={t('drawing.imageTitle')} visible={image !== null} onCancel={() => setImage(null)} footer={null} width={720}>
        {image && <img data-testid="drawing-image" src={image} alt={t('drawing.imageTitle')} style={{ maxWidth: '100%' }} />}
      </Modal>
      <TextDialog title={t('failReasonTitle')} text={failReason} onClose={() => setFailReason(null)} testId="fail-reason-text" />
    </Card>
  );
}
