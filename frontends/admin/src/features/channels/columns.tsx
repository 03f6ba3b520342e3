import type { TFunction } from 'i18next';
import { Button, Dropdown, Space, Tag, Tooltip, Typography, formatTimestamp, groupColor, renderQuota } from '@console/kit';
import { Popconfirm, type ColumnProps } from '@console/kit/data';
import { channelTypeInfo, type ChannelView } from '../../contracts';
import { isTagRow, responseTimeColor, statusReason, type ChannelRow, type TagRow } from './channel-rows';
import { InlineNumber } from './InlineNumber';

export interface ChannelActions {
  test(channel: ChannelView, model?: string): void;
  setStatus(channel: ChannelView, enabled: boolean): void;
  edit(channel: ChannelView): void;
  copy(channel: ChannelView): void;
  remove(channel: ChannelView): void;
  updateBalance(channel: ChannelView): void;
  saveNumber(channel: ChannelView, field: 'priority' | 'weight', value: number): Promise<void>;
  setTagEnabled(tag: TagRow, enabled: boolean): void;
  editTag(tag: TagRow): void;
  saveTagNumber(tag: TagRow, field: 'priority' | 'weight', value: number): Promise<void>;
}

/** Columns the operator may hide (the selection and actions always show). */
export const HIDEABLE_COLUMNS = ['id', 'name', 'group', 'type', 'status', 'response_time', 'balance', 'priority', 'weight', 'tag'] as const;

function StatusTag({ channel, t }: { channel: ChannelView; t: TFunction<'admin'> }) {
  if (channel.status === 1) return <Tag color="green">{t('channels.status.enabled')}</Tag>;
  if (channel.status === 2) return <Tag color="red">{t('channels.status.disabled')}</Tag>;
  if (channel.status === 3) {
    const reason = statusReason(channel);
    const tag = <Tag color="yellow">{t('channels.status.autoDisabled')}</Tag>;
    return reason ? (
      <Tooltip content={`${reason.reason}${reason.time ? ` (${formatTimestamp(reason.time)})` : ''}`}>
        <span data-testid={`channel-status-reason-${channel.id}`}>{tag}</span>
      </Tooltip>
    ) : (
      tag
    );
  }
  return <Tag color="grey">{t('channels.status.unknown')}</Tag>;
}

function ResponseTime({ channel, t }: { channel: ChannelView; t: TFunction<'admin'> }) {
  const color = responseTimeColor(channel.response_time);
  const text = channel.response_time ? t('channels.seconds', { value: (channel.response_time / 1000).toFixed(2) }) : t('channels.untested');
  return (
    <Tooltip content={channel.test_time ? t('channels.testedAt', { time: formatTimestamp(channel.test_time) }) : t('channels.untested')}>
      <Tag color={color} data-testid={`channel-response-${channel.id}`}>
        {text}
      </Tag>
    </Tooltip>
  );
}

const groupTags = (group: string) => (
  <Space wrap spacing={4}>
    {group
      .split(',')
      .filter(Boolean)
      .map((name) => (
        <Tag key={name} color={groupColor(name)}>
          {name}
        </Tag>
      ))}
  </Space>
);

function ChannelRowActions({ channel, actions, t }: { channel: ChannelView; actions: ChannelActions; t: TFunction<'admin'> }) {
  const models = channel.models.split(',').filter(Boolean);
  return (
    <Space wrap spacing={4}>
      <Button size="small" onClick={() => actions.test(channel)} data-testid={`channel-test-${channel.id}`}>
        {t('channels.action.test')}
      </Button>
      <Dropdown
        trigger="click"
        position="bottomLeft"
        render={
          <Dropdown.Menu style={{ maxHeight: 320, overflowY: 'auto' }}>
            {models.map((model) => (
              <Dropdown.Item key={model} onClick={() => actions.test(channel, model)}>
                {model}
              </Dropdown.Item>
            ))}
          </Dropdown.Menu>
        }
      >
        <Button size="small" data-testid={`channel-test-model-${channel.id}`}>
          {t('channels.action.testModel')}
        </Button>
      </Dropdown>
      {channel.status === 1 ? (
        <Button size="small" type="warning" onClick={() => actions.setStatus(channel, false)}>
          {t('channels.action.disable')}
        </Button>
      ) : (
        <Button size="small" onClick={() => actions.setStatus(channel, true)}>
          {t('channels.action.enable')}
        </Button>
      )}
      <Button size="small" onClick={() => actions.edit(channel)} data-testid={`channel-edit-${channel.id}`}>
        {t('channels.action.edit')}
      </Button>
      <Popconfirm title={t('channels.confirm.copy')} onConfirm={() => actions.copy(channel)}>
        <span style={{ display: 'inline-block' }}>
          <Button size="small">{t('channels.action.copy')}</Button>
        </span>
      </Popconfirm>
      <Popconfirm title={t('channels.confirm.delete')} onConfirm={() => actions.remove(channel)}>
        <span style={{ display: 'inline-block' }}>
          <Button size="small" type="danger" data-testid={`channel-delete-${channel.id}`}>
            {t('channels.action.delete')}
          </Button>
        </span>
      </Popconfirm>
    </Space>
  );
}

function TagRowActions({ tag, actions, t }: { tag: TagRow; actions: ChannelActions; t: TFunction<'admin'> }) {
  return (
    <Space wrap spacing={4}>
      <Button size="small" onClick={() => actions.setTagEnabled(tag, true)} data-testid={`tag-enable-${tag.tag}`}>
        {t('channels.action.enableAll')}
      </Button>
      <Button size="small" type="warning" onClick={() => actions.setTagEnabled(tag, false)} data-testid={`tag-disable-${tag.tag}`}>
        {t('channels.action.disableAll')}
      </Button>
      <Button size="small" onClick={() => actions.editTag(tag)} data-testid={`tag-edit-${tag.tag}`}>
        {t('channels.action.edit')}
      </Button>
    </Space>
  );
}

/** The channels table (spec 001 §2): one column set for channels and, in tag mode, their tag rows. */
export function channelColumns(t: TFunction<'admin'>, actions: ChannelActions, hidden: string[]): ColumnProps<ChannelRow>[] {
  const columns: ColumnProps<ChannelRow>[] = [
    { title: 'ID', dataIndex: 'id', key: 'id', width: 80, render: (_, row) => (isTagRow(row) ? null : row.id) },
    {
      title: t('channels.column.name'),
      key: 'name',
      render: (_, row) =>
        isTagRow(row) ? (
          <Typography.Text strong>{t('channels.tagRow', { tag: row.tag, count: row.children.length })}</Typography.Text>
        ) : row.remark ? (
          <Tooltip content={row.remark}>
            <Typography.Text underline>{row.name}</Typography.Text>
          </Tooltip>
        ) : (
          <Typography.Text>{row.name}</Typography.Text>
        ),
    },
    { title: t('channels.column.group'), key: 'group', render: (_, row) => groupTags(row.group) },
    {
      title: t('channels.column.type'),
      key: 'type',
      render: (_, row) =>
        isTagRow(row) ? null : <Tag color="white">{channelTypeInfo(row.type)?.name ?? t('channels.unknownType', { type: row.type })}</Tag>,
    },
    {
      title: t('channels.column.status'),
      key: 'status',
      render: (_, row) =>
        isTagRow(row) ? (
          <Tag color={row.enabledCount === row.children.length ? 'green' : row.enabledCount === 0 ? 'red' : 'yellow'}>
            {t('channels.enabledOf', { enabled: row.enabledCount, total: row.children.length })}
          </Tag>
        ) : (
          <StatusTag channel={row} t={t} />
        ),
    },
    {
      title: t('channels.column.responseTime'),
      key: 'response_time',
      render: (_, row) => (isTagRow(row) ? null : <ResponseTime channel={row} t={t} />),
    },
    {
      title: t('channels.column.balance'),
      key: 'balance',
      render: (_, row) => (
        <Space spacing={4}>
          <Tooltip content={t('channels.usedQuota')}>
            <Tag color="white">{renderQuota(row.used_quota)}</Tag>
          </Tooltip>
          {!isTagRow(row) && (
            <Tooltip content={t('channels.clickToUpdateBalance')}>
              <Tag
                color="white"
                style={{ cursor: 'pointer' }}
                onClick={() => actions.updateBalance(row)}
                data-testid={`channel-balance-${row.id}`}
              >
                ${row.balance.toFixed(2)}
              </Tag>
            </Tooltip>
          )}
        </Space>
      ),
    },
    {
      title: t('channels.column.priority'),
      key: 'priority',
      render: (_, row) =>
        isTagRow(row) ? (
          <InlineNumber
            value={row.priority}
            min={-999}
            onSave={(value) => actions.saveTagNumber(row, 'priority', value)}
            testId={`tag-priority-${row.tag}`}
          />
        ) : (
          <InlineNumber
            value={row.priority}
            min={-999}
            onSave={(value) => actions.saveNumber(row, 'priority', value)}
            testId={`channel-priority-${row.id}`}
          />
        ),
    },
    {
      title: t('channels.column.weight'),
      key: 'weight',
      render: (_, row) =>
        isTagRow(row) ? (
          <InlineNumber
            value={row.weight}
            min={0}
            onSave={(value) => actions.saveTagNumber(row, 'weight', value)}
            testId={`tag-weight-${row.tag}`}
          />
        ) : (
          <InlineNumber
            value={row.weight}
            min={0}
            onSave={(value) => actions.saveNumber(row, 'weight', value)}
            testId={`channel-weight-${row.id}`}
          />
        ),
    },
    {
      title: t('channels.column.tag'),
      key: 'tag',
      render: (_, row) => (!isTagRow(row) && row.tag ? <Tag color={groupColor(row.tag)}>{row.tag}</Tag> : null),
    },
    {
      title: '',
      key: 'actions',
      fixed: 'right',
      render: (_, row) =>
        isTagRow(row) ? <TagRowActions tag={row} actions={actions} t={t} /> : <ChannelRowActions channel={row} actions={actions} t={t} />,
    },
  ];
  return columns.filter((column) => !hidden.includes(String(column.key)));
}
