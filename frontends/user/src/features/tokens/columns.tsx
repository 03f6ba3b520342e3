import type { TFunction } from 'i18next';
import { IconCopy } from '@douyinfe/semi-icons';
import { Button, Dropdown, Space, Tag, Typography, formatTimestamp, groupColor, renderQuota } from '@console/kit';
import { Popconfirm, type ColumnProps } from '@console/kit/data';
import { TOKEN_STATUS, withPrefix, type Token } from './api';
import type { ChatLink } from './chat-links';

export interface TokenActions {
  copyKey(token: Token): void;
  openChat(token: Token, link: ChatLink | null): void;
  toggle(token: Token): void;
  edit(token: Token): void;
  remove(token: Token): void;
}

function StatusTag({ token, t }: { token: Token; t: TFunction<'user'> }) {
  switch (token.status) {
    case TOKEN_STATUS.enabled:
      return <Tag color="green">{token.model_limits_enabled ? t('tokens.status.limited') : t('tokens.status.enabled')}</Tag>;
    case TOKEN_STATUS.disabled:
      return <Tag color="red">{t('tokens.status.disabled')}</Tag>;
    case TOKEN_STATUS.expired:
      return <Tag color="yellow">{t('tokens.status.expired')}</Tag>;
    case TOKEN_STATUS.exhausted:
      return <Tag color="grey">{t('tokens.status.exhausted')}</Tag>;
    default:
      return <Tag color="grey">{t('tokens.status.unknown')}</Tag>;
  }
}

export function tokenColumns(t: TFunction<'user'>, actions: TokenActions, links: ChatLink[]): ColumnProps<Token>[] {
  return [
    { title: t('tokens.column.name'), dataIndex: 'name', render: (name: string) => <Typography.Text>{name}</Typography.Text> },
    { title: t('tokens.column.status'), dataIndex: 'status', render: (_, token) => <StatusTag token={token} t={t} /> },
    { title: t('tokens.column.used'), dataIndex: 'used_quota', render: (quota: number) => renderQuota(quota) },
    {
      title: t('tokens.column.remaining'),
      dataIndex: 'remain_quota',
      render: (quota: number, token) => (token.unlimited_quota ? <Tag color="white">{t('tokens.unlimited')}</Tag> : renderQuota(quota)),
    },
    {
      title: t('tokens.column.group'),
      dataIndex: 'group',
      render: (group: string) => <Tag color={groupColor(group || 'default')}>{group || t('tokens.userGroup')}</Tag>,
    },
    {
      title: t('tokens.column.key'),
      dataIndex: 'key',
      render: (key: string, token) => (
        <Space>
          <Typography.Text code>{withPrefix(key)}</Typography.Text>
          <Button
            size="small"
            theme="borderless"
            icon={<IconCopy />}
            aria-label={t('tokens.copy')}
            onClick={() => actions.copyKey(token)}
            data-testid={`copy-key-${token.id}`}
          />
        </Space>
      ),
    },
    { title: t('tokens.column.created'), dataIndex: 'created_time', render: (time: number) => formatTimestamp(time) },
    {
      title: t('tokens.column.expires'),
      dataIndex: 'expired_time',
      render: (time: number) => (time === -1 ? t('tokens.never') : formatTimestamp(time)),
    },
    {
      title: '',
      key: 'actions',
      fixed: 'right',
      render: (_, token) => (
        <Space>
          <Dropdown
            trigger="click"
            render={
              <Dropdown.Menu>
                {links.length === 0 ? (
                  <Dropdown.Item onClick={() => actions.openChat(token, null)}>{t('tokens.chat')}</Dropdown.Item>
                ) : (
                  links.map((link) => (
                    <Dropdown.Item key={link.name} onClick={() => actions.openChat(token, link)}>
                      {link.name}
                    </Dropdown.Item>
                  ))
                )}
              </Dropdown.Menu>
            }
          >
            <span style={{ display: 'inline-block' }}>
              <Button size="small">{t('tokens.chat')}</Button>
            </span>
          </Dropdown>
          {token.status === TOKEN_STATUS.enabled ? (
            <Button size="small" type="warning" onClick={() => actions.toggle(token)}>
              {t('tokens.disable')}
            </Button>
          ) : (
            <Button size="small" onClick={() => actions.toggle(token)}>
              {t('tokens.enable')}
            </Button>
          )}
          <Button size="small" onClick={() => actions.edit(token)}>
            {t('tokens.edit')}
          </Button>
          <Popconfirm title={t('tokens.deleteConfirm')} onConfirm={() => actions.remove(token)}>
            <span style={{ display: 'inline-block' }}>
              <Button size="small" type="danger">
                {t('tokens.delete')}
              </Button>
            </span>
          </Popconfirm>
        </Space>
      ),
    },
  ];
}
