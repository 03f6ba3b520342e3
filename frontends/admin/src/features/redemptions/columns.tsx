import type { TFunction } from 'i18next';
import { Button, Space, Tag, Typography, formatTimestamp, renderQuota } from '@console/kit';
import { Popconfirm, type ColumnProps } from '@console/kit/data';
import type { RedemptionView } from '../../contracts';
import { RedemptionStatus, isExpired } from './api';

export interface RedemptionActions {
  copy(code: RedemptionView): void;
  setStatus(code: RedemptionView, enabled: boolean): void;
  edit(code: RedemptionView): void;
  remove(code: RedemptionView): void;
}

function StatusTag({ code, t }: { code: RedemptionView; t: TFunction<'admin'> }) {
  if (code.status === RedemptionStatus.used) return <Tag color="grey">{t('redemptions.status.used')}</Tag>;
  if (code.status === RedemptionStatus.disabled) return <Tag color="red">{t('redemptions.status.disabled')}</Tag>;
  if (isExpired(code)) return <Tag color="orange">{t('redemptions.status.expired')}</Tag>;
  return <Tag color="green">{t('redemptions.status.unused')}</Tag>;
}

export function redemptionColumns(t: TFunction<'admin'>, actions: RedemptionActions): ColumnProps<RedemptionView>[] {
  return [
    { title: 'ID', dataIndex: 'id', width: 70 },
    { title: t('redemptions.column.name'), dataIndex: 'name' },
    { title: t('redemptions.column.status'), key: 'status', render: (_, code) => <StatusTag code={code} t={t} /> },
    { title: t('redemptions.column.quota'), dataIndex: 'quota', render: (quota: number) => <Tag color="white">{renderQuota(quota)}</Tag> },
    { title: t('redemptions.column.created'), dataIndex: 'created_time', render: (time: number) => formatTimestamp(time) },
    {
      title: t('redemptions.column.expires'),
      dataIndex: 'expired_time',
      render: (time: number) => (time ? formatTimestamp(time) : t('redemptions.never')),
    },
    {
      title: t('redemptions.column.redeemedBy'),
      key: 'used',
      render: (_, code) =>
        code.used_user_id ? (
          <Typography.Text>
            {t('redemptions.redeemedBy', { user: code.used_user_id, time: formatTimestamp(code.redeemed_time) })}
          </Typography.Text>
        ) : (
          '-'
        ),
    },
    {
      title: '',
      key: 'actions',
      fixed: 'right',
      render: (_, code) => {
        const used = code.status === RedemptionStatus.used;
        return (
          <Space wrap spacing={4}>
            <Button size="small" onClick={() => actions.copy(code)} data-testid={`redemption-copy-${code.id}`}>
              {t('redemptions.action.copy')}
            </Button>
            {code.status === RedemptionStatus.unused ? (
              <Button size="small" type="warning" onClick={() => actions.setStatus(code, false)}>
                {t('channels.action.disable')}
              </Button>
            ) : (
              <Button size="small" disabled={used || isExpired(code)} onClick={() => actions.setStatus(code, true)}>
                {t('channels.action.enable')}
              </Button>
            )}
            <Button size="small" disabled={code.status !== RedemptionStatus.unused} onClick={() => actions.edit(code)}>
              {t('channels.action.edit')}
            </Button>
            <Popconfirm title={t('redemptions.confirm.delete')} onConfirm={() => actions.remove(code)}>
              <span style={{ display: 'inline-block' }}>
                <Button size="small" type="danger">
                  {t('channels.action.delete')}
                </Button>
              </span>
            </Popconfirm>
          </Space>
        );
      },
    },
  ];
}
