import type { TFunction } from 'i18next';
import { Button, Space, Tag, Tooltip, Typography, groupColor, renderQuota, shortenNumber } from '@console/kit';
import { Popconfirm, type ColumnProps } from '@console/kit/data';
import type { AdminUser, ManageAction } from './api';

const ROLE_TAGS: Record<number, { key: string; color: 'blue' | 'orange' | 'red' }> = {
  1: { key: 'role.user', color: 'blue' },
  10: { key: 'role.admin', color: 'orange' },
  100: { key: 'role.root', color: 'red' },
};

export const isDeregistered = (user: AdminUser) => Boolean(user.DeletedAt);

function StatusTag({ user, t }: { user: AdminUser; t: TFunction<'admin'> }) {
  if (isDeregistered(user)) return <Tag color="grey">{t('status.deregistered')}</Tag>;
  if (user.status === 1) return <Tag color="green">{t('status.active')}</Tag>;
  if (user.status === 2) return <Tag color="red">{t('status.banned')}</Tag>;
  return <Tag color="grey">{t('status.unknown')}</Tag>;
}

interface ColumnContext {
  t: TFunction<'admin'>;
  onManage(user: AdminUser, action: ManageAction): void;
  onEdit(user: AdminUser): void;
}

export function userColumns({ t, onManage, onEdit }: ColumnContext): ColumnProps<AdminUser>[] {
  return [
    { title: 'ID', dataIndex: 'id', width: 70 },
    {
      title: t('column.username'),
      dataIndex: 'username',
      render: (_, user) => (
        <Tooltip content={user.remark || user.display_name || user.username}>
          <span style={{ display: 'inline-block' }}>
            <Typography.Text>{user.username}</Typography.Text>
          </span>
        </Tooltip>
      ),
    },
    { title: t('column.group'), dataIndex: 'group', render: (group: string) => <Tag color={groupColor(group)}>{group}</Tag> },
    {
      title: t('column.stats'),
      key: 'stats',
      render: (_, user) => (
        <Space wrap>
          <Tag color="white">{t('stats.remaining', { value: renderQuota(user.quota) })}</Tag>
          <Tag color="white">{t('stats.used', { value: renderQuota(user.used_quota) })}</Tag>
          <Tag color="white">{t('stats.requests', { value: shortenNumber(user.request_count) })}</Tag>
        </Space>
      ),
    },
    {
      title: t('column.invite'),
      key: 'invite',
      render: (_, user) => (
        <Space wrap>
          <Tag color="white">{t('invite.count', { value: user.aff_count })}</Tag>
          <Tag color="white">{t('invite.earnings', { value: renderQuota(user.aff_history_quota) })}</Tag>
          <Tag color="white">{user.inviter_id ? t('invite.inviter', { value: user.inviter_id }) : t('invite.none')}</Tag>
        </Space>
      ),
    },
    {
      title: t('column.role'),
      dataIndex: 'role',
      render: (role: number) => {
        const tag = ROLE_TAGS[role];
        return tag ? <Tag color={tag.color}>{t(tag.key)}</Tag> : <Tag color="grey">{t('role.unknown')}</Tag>;
      },
    },
    { title: t('column.status'), dataIndex: 'status', render: (_, user) => <StatusTag user={user} t={t} /> },
    {
      title: '',
      key: 'actions',
      fixed: 'right',
      render: (_, user) =>
        isDeregistered(user) ? null : (
          <Space wrap>
            <Button size="small" onClick={() => onManage(user, 'promote')}>
              {t('action.promote')}
            </Button>
            <Button size="small" onClick={() => onManage(user, 'demote')}>
              {t('action.demote')}
            </Button>
            {user.status === 1 ? (
              <Button size="small" type="warning" onClick={() => onManage(user, 'disable')}>
                {t('action.disable')}
              </Button>
            ) : (
              <Button size="small" disabled={user.status === 3} onClick={() => onManage(user, 'enable')}>
                {t('action.enable')}
              </Button>
            )}
            <Button size="small" onClick={() => onEdit(user)}>
              {t('action.edit')}
            </Button>
            <Popconfirm title={t('action.deleteConfirm')} onConfirm={() => onManage(user, 'delete')}>
              <span style={{ display: 'inline-block' }}>
                <Button size="small" type="danger">
                  {t('action.delete')}
                </Button>
              </span>
            </Popconfirm>
          </Space>
        ),
    },
  ];
}
