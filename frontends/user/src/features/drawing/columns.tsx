import type { TFunction } from 'i18next';
import { copyText, Button, Tag, Typography } from '@console/kit';
import type { ColumnProps } from '@console/kit/data';
import { channelColor, failReasonColumn, ProgressRing, StatusTag, TimeSpent } from '../task-logs/parts';
import type { DrawingTask } from './api';

const pad = (n: number) => String(n).padStart(2, '0');

/** Unix milliseconds → local "YYYY-MM-DD HH:mm:ss". */
function formatMs(ms: number): string {
  if (!ms || ms <= 0) return '-';
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const CODE_COLOR: Record<number, 'green' | 'yellow' | 'orange' | 'grey'> = { 1: 'green', 21: 'yellow', 22: 'orange', 0: 'grey' };

export interface DrawingActions {
  showImage(url: string): void;
  showFailReason(text: string): void;
}

export function drawingColumns(t: TFunction, admin: boolean, actions: DrawingActions): ColumnProps<DrawingTask>[] {
  const columns: ColumnProps<DrawingTask>[] = [
    { title: t('columns.submitTime'), dataIndex: 'submit_time', render: (v: number) => formatMs(v) },
    {
      title: t('columns.timeSpent'),
      key: 'spent',
      render: (_: unknown, row) => <TimeSpent start={row.submit_time / 1000} end={row.finish_time / 1000} />,
    },
  ];
  if (admin) {
    columns.push({
      title: t('columns.channel'),
      dataIndex: 'channel_id',
      render: (id: number) => (
        <Tag color={channelColor(id)} style={{ cursor: 'pointer' }} onClick={() => void copyText(String(id), t('copied'))}>
          {id}
        </Tag>
      ),
    });
  }
  columns.push(
    {
      title: t('columns.type'),
      dataIndex: 'action',
      render: (v: string) => <Tag>{t(`action.${v}`, { defaultValue: t('action.other') })}</Tag>,
    },
    {
      title: t('columns.taskId'),
      dataIndex: 'mj_id',
      render: (v: string) => (
        // Whole, never truncated: operators compare and paste these ids (they are 16–19 digits, short enough to fit).
        <Typography.Text copyable={{ content: v }} style={{ whiteSpace: 'nowrap' }}>
          {v || '-'}
        </Typography.Text>
      ),
    },
    {
      title: t('columns.code'),
      dataIndex: 'code',
      render: (v: number) => <Tag color={CODE_COLOR[v] ?? 'grey'}>{t(`code.${v}`, { defaultValue: t('code.other') })}</Tag>,
    },
    { title: t('columns.status'), dataIndex: 'status', render: (v: string) => <StatusTag status={v} /> },
    { title: t('columns.progress'), dataIndex: 'progress', render: (v: string) => <ProgressRing value={v} /> },
    {
      title: t('columns.image'),
      dataIndex: 'image_url',
      render: (v: string) =>
        v ? (
          <Button data-testid="view-image" size="small" theme="borderless" onClick={() => actions.showImage(v)}>
            {t('drawing.viewImage')}
          </Button>
        ) : (
          t('none')
        ),
    },
    {
      title: t('columns.prompt'),
      dataIndex: 'prompt',
      render: (v: string) => (
        <Typography.Text ellipsis={{ showTooltip: true }} style={{ maxWidth: 220 }}>
          {v || '-'}
        </Typography.Text>
      ),
    },
    {
      title: t('columns.promptEn'),
      dataIndex: 'prompt_en',
      render: (v: string) => (
        <Typography.Text ellipsis={{ showTooltip: true }} style={{ maxWidth: 220 }}>
          {v || '-'}
        </Typography.Text>
      ),
    },
    failReasonColumn(t, actions.showFailReason),
  );
  return columns;
}
