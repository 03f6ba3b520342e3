import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { IconCopy, IconSearch } from '@douyinfe/semi-icons';
import { Banner, Button, Card, Input, Space, copyText, useAuth } from '@console/kit';
import { Table } from '@console/kit/data';
import { fuzzyMatch } from './pricing-model';
import { pricingColumns } from './pricingColumns';
import { usePricing } from './usePricing';

const GUEST_GROUP = 'default';

export function PricingPage() {
  const { t } = useTranslation('shell');
  const { user } = useAuth();
  const pricing = usePricing();
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const [pickedGroup, setPickedGroup] = useState<string | null>(null);
  const group = pickedGroup ?? user?.group ?? GUEST_GROUP;
  const groupRatio = pricing.group_ratio[group] ?? 1;

  const rows = useMemo(() => pricing.rows.filter((row) => fuzzyMatch(row.model_name, query)), [pricing.rows, query]);
  const columns = useMemo(() => pricingColumns({ t, group, groupRatio, onPickGroup: setPickedGroup }), [t, group, groupRatio]);

  return (
    <Card>
      {user ? (
        <Banner type="success" closeIcon={null} description={t('pricing.groupAlert', { group, ratio: groupRatio })} />
      ) : (
        <Banner type="warning" closeIcon={null} description={t('pricing.guestAlert', { ratio: pricing.group_ratio[GUEST_GROUP] ?? 1 })} />
      )}
      <Banner type="info" closeIcon={null} description={t('pricing.formula')} style={{ marginTop: 8 }} />
      <Space style={{ margin: '16px 0' }} wrap>
        <Input
          prefix={<IconSearch />}
          placeholder={t('pricing.search')}
          value={query}
          onChange={setQuery}
          showClear
          style={{ width: 280 }}
        />
        <Button icon={<IconCopy />} disabled={selected.length === 0} onClick={() => void copyText(selected.join(','))}>
          {t('pricing.copySelected')}
        </Button>
      </Space>
      <Table
        rowKey="model_name"
        columns={columns}
        dataSource={rows}
        loading={pricing.loading}
        rowSelection={{ selectedRowKeys: selected, onChange: (keys) => setSelected((keys ?? []).map(String)) }}
        pagination={{
          pageSize: Math.max(rows.length, 1),
          formatPageText: (page) => t('pricing.pageText', { start: page?.currentStart, end: page?.currentEnd, total: page?.total }),
        }}
      />
    </Card>
  );
}
