import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Card, Tag, formatTimestamp, readPageSize, usePagedQuery, writePageSize } from '@console/kit';
import { PagedTable, type ColumnProps } from '@console/kit/data';
import { type PayMethod, type TopUpOrder, walletApi } from './api';

const fetchOrders = (page: number, pageSize: number) => walletApi.orders(page, pageSize);
const STATUS_COLOR = { success: 'green', pending: 'orange', expired: 'grey' } as const;

/** The caller's online top-up orders, newest first, one page at a time. */
export function TopUpHistory({ refreshKey, payMethods }: { refreshKey: number; payMethods: PayMethod[] }) {
  const { t } = useTranslation('user');
  const [page, setPage] = useState(1);
  const [pageSize, setPageSizeState] = useState(readPageSize);
  const query = usePagedQuery<TopUpOrder, number>(fetchOrders, page, pageSize, refreshKey);
  const setPageSize = (size: number) => {
    writePageSize(size);
    setPageSizeState(size);
    setPage(1);
  };
  const columns: ColumnProps<TopUpOrder>[] = [
    { title: t('wallet.history.tradeNo'), dataIndex: 'trade_no' },
    { title: t('wallet.history.amount'), dataIndex: 'amount' },
    { title: t('wallet.history.money'), dataIndex: 'money', render: (money: number) => money.toFixed(2) },
    {
      title: t('wallet.history.method'),
      dataIndex: 'payment_method',
      // The site's name for the method (支付宝, 微信), the raw code for one no longer offered.
      render: (method: string) => payMethods.find((known) => known.type === method)?.name ?? method,
    },
    {
      title: t('wallet.history.status'),
      dataIndex: 'status',
      render: (status: TopUpOrder['status']) => (
        <Tag color={STATUS_COLOR[status] ?? 'grey'}>{t(`wallet.status.${status}`, { defaultValue: status })}</Tag>
      ),
    },
    { title: t('wallet.history.created'), dataIndex: 'create_time', render: (time: number) => formatTimestamp(time) },
    { title: t('wallet.history.completed'), dataIndex: 'complete_time', render: (time: number) => formatTimestamp(time) },
  ];
  return (
    <Card title={t('wallet.history.title')}>
      <PagedTable data-testid="topup-history" columns={columns} query={query} paging={{ page, setPage, pageSize, setPageSize }} />
    </Card>
  );
}
