import type { TFunction } from 'i18next';
import { copyText, formatTimestamp, Tag, Typography } from '@console/kit';
import type { ColumnProps } from '@console/kit/data';
import { channelColor, failReasonColumn, ProgressRing, StatusTag, TimeSpent } from '../task-logs/parts';
import type { TaskRow } from './api';

export interface TaskActions {
  showDetail(row: TaskRow): void;
  showFailReason(text: string): void;
}

const KNOWN_ACTIONS = new Set(['MUSIC', 'LYRICS', 'generate', 'textGenerate', 'firstTailGenerate', 'referenceGenerate', 'remix']);
/** Video tasks are stored under their channel type (new-api); the ones this gateway relays have names. */
const PLATFORM_NAMES: Record<string, string> = {
  suno: 'Suno',
  '1': 'OpenAI',
  '50': 'Kling',
  '51': 'Jimeng',
  '52': 'Vidu',
  '54': 'Doubao',
  '55': 'Sora',
  hailuo: 'Hailuo',
  veo: 'Veo',
};

export function taskColumns(t: TFunction, admin: boolean, actions: TaskActions): ColumnProps<TaskRow>[] {
  const columns: ColumnProps<TaskRow>[] = [
    { title: t('columns.submitTime'), dataIndex: 'submit_time', render: (v: number) => formatTimestamp(v) },
    { title: t('columns.finishTime'), dataIndex: 'finish_time', render: (v: number) => formatTimestamp(v) },
    { title: t('columns.progress'), dataIndex: 'progress', render: (v: string) => <ProgressRing value={v} /> },
    {
      title: t('columns.timeSpent'),
      key: 'spent',
      render: (_: unknown, row) => <TimeSpent start={row.submit_time} end={row.finish_time} />,
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
      title: t('columns.platform'),
      dataIndex: 'platform',
      render: (v: string) => <Tag>{PLATFORM_NAMES[v] ?? t('platform.other')}</Tag>,
    },
    {
      title: t('columns.type'),
      dataIndex: 'action',
      render: (v: string) => <Tag>{KNOWN_ACTIONS.has(v) ? t(`action.${v}`) : t('action.other')}</Tag>,
    },
    {
      title: t('columns.taskId'),
      dataIndex: 'task_id',
      render: (v: string, row) => (
        <Typography.Text data-testid="task-id" link onClick={() => actions.showDetail(row)}>
          {v || '-'}
        </Typography.Text>
      ),
    },
    { title: t('columns.status'), dataIndex: 'status', render: (v: string) => <StatusTag status={v} /> },
    failReasonColumn(t, actions.showFailReason),
  );
  return columns;
}
