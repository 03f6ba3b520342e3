import type { TFunction } from 'i18next';
import { Space, Tag, Tooltip, Typography, formatTimestamp, groupColor, renderQuota } from '@console/kit';
import type { ColumnProps } from '@console/kit/data';
import { LOG_TYPE, type LogRow } from './api';
import type { ColumnVisibility, LogColumnKey } from './column-prefs';
import { LogDetailsCell } from './LogDetails';
import { firstTokenColor, parseOther, retryChain, useTimeColor, type LogOther } from './log-other';

/**
 * A row with its `other` parsed once. Its id is unique inside a page: admins get real ids, a user's own
 * view numbers its rows by position (new-api hides real ids there).
 */
export type LogTableRow = LogRow & { parsed: LogOther };

export interface LogColumnActions {
  showUser(userId: number): void;
}

const TYPE_TAGS: Record<number, { key: string; color: 'cyan' | 'green' | 'orange' | 'purple' | 'red' | 'blue' }> = {
  [LOG_TYPE.topUp]: { key: 'topUp', color: 'cyan' },
  [LOG_TYPE.consume]: { key: 'consume', color: 'green' },
  [LOG_TYPE.manage]: { key: 'manage', color: 'orange' },
  [LOG_TYPE.system]: { key: 'system', color: 'purple' },
  [LOG_TYPE.error]: { key: 'error', color: 'red' },
  [LOG_TYPE.refund]: { key: 'refund', color: 'blue' },
};

export function toTableRows(rows: LogRow[]): LogTableRow[] {
  return rows.map((row) => ({ ...row, parsed: parseOther(row.other) }));
}

function ModelCell({ row }: { row: LogTableRow }) {
  if (!row.model_name) return <Typography.Text type="tertiary">-</Typography.Text>;
  const mapped = row.parsed.is_model_mapped && row.parsed.upstream_model_name;
  return (
    <Space vertical align="start" spacing={2}>
      <Tag color="white">
        <span data-testid="log-model">{row.model_name}</span>
      </Tag>
      {mapped && (
        <Typography.Text type="tertiary" size="small">
          <span data-testid="log-upstream-model">→ {row.parsed.upstream_model_name}</span>
        </Typography.Text>
      )}
    </Space>
  );
}

function TimingCell({ row, t }: { row: LogTableRow; t: TFunction<'user'> }) {
  if (row.type !== LOG_TYPE.consume && row.type !== LOG_TYPE.error) return <Typography.Text type="tertiary">-</Typography.Text>;
  const frt = typeof row.parsed.frt === 'number' && row.parsed.frt > 0 ? row.parsed.frt / 1000 : undefined;
  return (
    <Space spacing={4} wrap>
      <Tag color={useTimeColor(row.use_time)}>{row.use_time} s</Tag>
      {row.is_stream && frt !== undefined && (
        <Tooltip content={t('logs.firstToken')}>
          <Tag color={firstTokenColor(frt)}>{frt.toFixed(1)} s</Tag>
        </Tooltip>
      )}
      <Tag color={row.is_stream ? 'blue' : 'purple'}>{row.is_stream ? t('logs.stream') : t('logs.nonStream')}</Tag>
    </Space>
  );
}

/** Every column of the logs table, keyed; the page keeps those the role and the preferences allow. */
export function logColumns(t: TFunction<'user'>, actions: LogColumnActions): Record<LogColumnKey, ColumnProps<LogTableRow>> {
  return {
    time: { title: t('logs.column.time'), dataIndex: 'created_at', render: (time: number) => formatTimestamp(time) },
    channel: {
      title: t('logs.column.channel'),
      dataIndex: 'channel',
      render: (channel: number, row) =>
        channel ? (
          <Tooltip content={row.channel_name || '-'}>
            <Tag color={groupColor(String(channel))}>
              <span data-testid="log-channel">{channel}</span>
            </Tag>
          </Tooltip>
        ) : (
          '-'
        ),
    },
    user: {
      title: t('logs.column.user'),
      dataIndex: 'username',
      render: (username: string, row) =>
        username ? (
          <Typography.Text link onClick={() => actions.showUser(row.user_id)}>
            <span data-testid="log-username">{username}</span>
          </Typography.Text>
        ) : (
          '-'
        ),
    },
    token: {
      title: t('logs.column.token'),
      dataIndex: 'token_name',
      render: (name: string) =>
        name ? (
          <Tag color="grey">
            <span data-testid="log-token">{name}</span>
          </Tag>
        ) : (
          '-'
        ),
    },
    group: {
      title: t('logs.column.group'),
      dataIndex: 'group',
      render: (group: string) => (group ? <Tag color={groupColor(group)}>{group}</Tag> : '-'),
    },
    type: {
      title: t('logs.column.type'),
      dataIndex: 'type',
      render: (type: number) => {
        const tag = TYPE_TAGS[type];
        return <Tag color={tag?.color ?? 'grey'}>{t(`logs.type.${tag?.key ?? 'unknown'}`)}</Tag>;
      },
    },
    model: { title: t('logs.column.model'), dataIndex: 'model_name', render: (_: string, row) => <ModelCell row={row} /> },
    use_time: { title: t('logs.column.useTime'), dataIndex: 'use_time', render: (_: number, row) => <TimingCell row={row} t={t} /> },
    prompt: {
      title: t('logs.column.prompt'),
      dataIndex: 'prompt_tokens',
      render: (n: number, row) => (row.type === LOG_TYPE.consume ? n : '-'),
    },
    completion: {
      title: t('logs.column.completion'),
      dataIndex: 'completion_tokens',
      render: (n: number, row) => (row.type === LOG_TYPE.consume ? n : '-'),
    },
    cost: {
      title: t('logs.column.cost'),
      dataIndex: 'quota',
      render: (quota: number, row) =>
        row.type === LOG_TYPE.consume || row.type === LOG_TYPE.topUp ? <span data-testid="log-cost">{renderQuota(quota, 6)}</span> : '-',
    },
    retry: {
      title: t('logs.column.retry'),
      key: 'retry',
      render: (_: unknown, row) => {
        const chain = retryChain(row.parsed);
        return chain.length ? <span data-testid="log-retry">{chain.join(' → ')}</span> : '-';
      },
    },
    details: {
      title: t('logs.column.details'),
      key: 'details',
      render: (_: unknown, row) => <LogDetailsCell row={row} other={row.parsed} t={t} />,
    },
  };
}

export function visibleColumns(all: Record<LogColumnKey, ColumnProps<LogTableRow>>, keys: LogColumnKey[], visibility: ColumnVisibility) {
  return keys.filter((key) => visibility[key]).map((key) => ({ ...all[key], key }));
}
