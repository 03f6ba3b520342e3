import type { TFunction } from 'i18next';
import { IconTickCircle, IconUploadError } from '@douyinfe/semi-icons';
import { Space, Tag, Typography, copyText, groupColor, ratioColor } from '@console/kit';
import type { ColumnProps } from '@console/kit/data';
import { formatUsd, isAvailable, tokenPrices, type PricingRow } from './pricing-model';
import { RatioTitle } from './RatioHelp';

interface ColumnContext {
  t: TFunction<'shell'>;
  group: string;
  groupRatio: number;
  onPickGroup(group: string): void;
}

export function pricingColumns({ t, group, groupRatio, onPickGroup }: ColumnContext): ColumnProps<PricingRow>[] {
  return [
    {
      title: t('pricing.available'),
      key: 'available',
      width: 90,
      render: (_, row) =>
        isAvailable(row, group) ? (
          <IconTickCircle style={{ color: 'var(--semi-color-success)' }} aria-label={t('pricing.yes')} />
        ) : (
          <IconUploadError style={{ color: 'var(--semi-color-danger)' }} aria-label={t('pricing.no')} />
        ),
    },
    {
      title: t('pricing.model'),
      dataIndex: 'model_name',
      render: (name: string) => (
        <Tag color="green" size="large" style={{ cursor: 'pointer' }} onClick={() => void copyText(name)}>
          {name}
        </Tag>
      ),
    },
    {
      title: t('pricing.billingType'),
      dataIndex: 'quota_type',
      render: (type: number, row) =>
        row.billing_mode === 'tiered_expr' ? (
          <Tag color="orange">{t('pricing.byExpression')}</Tag>
        ) : (
          <Tag color={type === 0 ? 'teal' : 'violet'}>{type === 0 ? t('pricing.perToken') : t('pricing.perCall')}</Tag>
        ),
    },
    {
      title: t('pricing.groups'),
      key: 'groups',
      render: (_, row) => (
        <Space wrap>
          {row.enable_groups.map((name) => (
            <Tag key={name} color={groupColor(name)} style={{ cursor: 'pointer' }} onClick={() => onPickGroup(name)}>
              {name}
            </Tag>
          ))}
        </Space>
      ),
    },
    {
      title: <RatioTitle />,
      key: 'ratio',
      render: (_, row) =>
        row.quota_type === 0 && row.billing_mode !== 'tiered_expr' ? (
          <Typography.Text size="small">
            {t('pricing.modelRatio')}: <Tag color={ratioColor(row.model_ratio)}>{row.model_ratio}</Tag>
            <br />
            {t('pricing.completionRatio')}: {Number(row.completion_ratio.toFixed(3))}
            <br />
            {t('pricing.groupRatio')}: <Tag color={ratioColor(groupRatio)}>{groupRatio}</Tag>
          </Typography.Text>
        ) : (
          '-'
        ),
    },
    {
      title: t('pricing.price'),
      key: 'price',
      render: (_, row) => {
        if (row.billing_mode === 'tiered_expr')
          return (
            <Typography.Text size="small">
              {t('pricing.expressionPrice', { ratio: groupRatio })}
              <br />
              <Typography.Text code data-testid={`pricing-expr-${row.model_name}`}>
                {row.billing_expr}
              </Typography.Text>
            </Typography.Text>
          );
        if (row.quota_type !== 0) return t('pricing.callPrice', { price: formatUsd(row.model_price * groupRatio) });
        const prices = tokenPrices(row, groupRatio);
        return (
          <Typography.Text size="small">
            {t('pricing.promptPrice', { price: formatUsd(prices.prompt) })}
            <br />
            {t('pricing.completionPrice', { price: formatUsd(prices.completion) })}
          </Typography.Text>
        );
      },
    },
  ];
}
