import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Card, Input, Space, Toast, Typography } from '@console/kit';
import { Popconfirm, Select, Table, type ColumnProps } from '@console/kit/data';
import type { Settings } from '../useSettings';
import {
  isNumeric,
  ratioFromTokenPrice,
  readMaps,
  rowProblem,
  toMaps,
  toRows,
  tokenPriceFromRatio,
  withPrice,
  type PriceRow,
} from './price-table';

const KEYS = ['ModelPrice', 'ModelRatio', 'CompletionRatio'] as const;
type BatchField = 'price' | 'ratio' | 'completionRatio';

/** Per-model prices as a table: per token by ratio, or per request by a fixed price; numbers only, unique names. */
export function PriceTableEditor({ settings }: { settings: Settings }) {
  const { t } = useTranslation('admin');
  const [rows, setRows] = useState<PriceRow[]>([]);
  const [filter, setFilter] = useState('');
  const [newName, setNewName] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  /** What was typed in the per-1M-token price column, until the ratio is edited directly. */
  const [typedPrices, setTypedPrices] = useState<Record<string, string>>({});
  const [batchField, setBatchField] = useState<BatchField>('ratio');
  const [batchValue, setBatchValue] = useState('');
  const { ModelPrice, ModelRatio, CompletionRatio } = settings.stored;

  useEffect(() => setRows(toRows(readMaps({ ModelPrice, ModelRatio, CompletionRatio }))), [ModelPrice, ModelRatio, CompletionRatio]);

  const update = (name: string, change: (row: PriceRow) => PriceRow) =>
    setRows((current) => current.map((row) => (row.name === name ? change(row) : row)));
  const cell = (field: BatchField) => (_: unknown, row: PriceRow) => (
    <Input
      size="small"
      value={row[field]}
      disabled={field !== 'price' && row.price.trim() !== ''}
      validateStatus={isNumeric(row[field]) ? 'default' : 'error'}
      onChange={(value) => {
        if (field === 'ratio') setTypedPrices(({ [row.name]: _typed, ...rest }) => rest);
        update(row.name, (current) => (field === 'price' ? withPrice(current, value) : { ...current, [field]: value }));
      }}
      style={{ width: 120 }}
      data-testid={`price-${field}-${row.name}`}
    />
  );

  const columns: ColumnProps<PriceRow>[] = [
    { title: t('settings.ratio.model'), dataIndex: 'name' },
    { title: t('settings.ratio.perRequest'), key: 'price', render: cell('price') },
    { title: t('settings.ratio.modelRatio'), key: 'ratio', render: cell('ratio') },
    { title: t('settings.ratio.completionRatio'), key: 'completionRatio', render: cell('completionRatio') },
    {
      title: t('settings.ratio.tokenPrice'),
      key: 'usd',
      // Per token by price: the USD price of 1M input tokens, kept as the ratio (price / 2).
      render: (_, row) => (
        <Input
          size="small"
          value={typedPrices[row.name] ?? (row.ratio && isNumeric(row.ratio) ? String(tokenPriceFromRatio(Number(row.ratio))) : '')}
          disabled={row.price.trim() !== ''}
          validateStatus={isNumeric(typedPrices[row.name] ?? '') ? 'default' : 'error'}
          onChange={(value) => {
            setTypedPrices((current) => ({ ...current, [row.name]: value }));
            if (value.trim() !== '' && isNumeric(value))
              update(row.name, (current) => ({ ...current, ratio: String(ratioFromTokenPrice(Number(value))) }));
          }}
          suffix="/ 1M"
          style={{ width: 140 }}
        />
      ),
    },
    {
      title: '',
      key: 'actions',
      render: (_, row) => (
        <Button size="small" type="danger" onClick={() => setRows((current) => current.filter((item) => item.name !== row.name))}>
          {t('channels.action.delete')}
        </Button>
      ),
    },
  ];

  const addModel = () => {
    const name = newName.trim();
    if (!name) return;
    if (rows.some((row) => row.name === name)) return Toast.error(t('settings.ratio.nameExists'));
    setRows((current) => [{ name, price: '', ratio: '1', completionRatio: '' }, ...current]);
    setNewName('');
  };

  const batchSet = () => {
    if (selected.length === 0) return Toast.error(t('settings.ratio.batchSelect'));
    if (!batchValue.trim()) return Toast.error(t('settings.ratio.batchValue'));
    if (!isNumeric(batchValue)) return Toast.error(t('settings.ratio.notNumber'));
    setRows((current) =>
      current.map((row) =>
        selected.includes(row.name)
          ? batchField === 'price'
            ? withPrice(row, batchValue)
            : { ...row, price: '', [batchField]: batchValue }
          : row,
      ),
    );
    Toast.success(t('settings.ratio.batchDone', { count: selected.length }));
  };

  const save = async () => {
    for (const row of rows) {
      const problem = rowProblem(row);
      if (problem === 'number') return Toast.error(`${row.name}: ${t('settings.ratio.notNumber')}`);
      if (problem === 'missing') return Toast.error(`${row.name}: ${t('settings.ratio.missing')}`);
    }
    const maps = toMaps(rows);
    await settings.save(KEYS, {
      ModelPrice: JSON.stringify(maps.ModelPrice),
      ModelRatio: JSON.stringify(maps.ModelRatio),
      CompletionRatio: JSON.stringify(maps.CompletionRatio),
    });
  };

  const shown = rows.filter((row) => row.name.toLowerCase().includes(filter.trim().toLowerCase()));
  return (
    <Card title={t('settings.ratio.tableTitle')} style={{ marginBottom: 16 }}>
      <Typography.Paragraph type="tertiary">{t('settings.ratio.tableHint')}</Typography.Paragraph>
      <Space wrap style={{ marginBottom: 12 }}>
        <Input value={filter} onChange={setFilter} placeholder={t('settings.ratio.search')} showClear style={{ width: 200 }} />
        <Input
          value={newName}
          onChange={setNewName}
          onEnterPress={addModel}
          placeholder={t('settings.ratio.newModel')}
          style={{ width: 200 }}
          data-testid="price-new-model"
        />
        <Button onClick={addModel}>{t('settings.ratio.add')}</Button>
        <Select
          value={batchField}
          onChange={(value) => setBatchField(value as BatchField)}
          optionList={[
            { label: t('settings.ratio.perRequest'), value: 'price' },
            { label: t('settings.ratio.modelRatio'), value: 'ratio' },
            { label: t('settings.ratio.completionRatio'), value: 'completionRatio' },
          ]}
          style={{ width: 150 }}
        />
        <Input value={batchValue} onChange={setBatchValue} placeholder={t('settings.ratio.batchValue')} style={{ width: 120 }} />
        <Button onClick={batchSet}>{t('settings.ratio.batchSet', { count: selected.length })}</Button>
      </Space>
      <Table<PriceRow>
        rowKey="name"
        size="small"
        columns={columns}
        dataSource={shown}
        pagination={{ pageSize: 10 }}
        rowSelection={{ selectedRowKeys: selected, onChange: (keys) => setSelected((keys ?? []).map(String)) }}
        data-testid="price-table"
      />
      <Space style={{ marginTop: 12 }}>
        <Button theme="solid" onClick={() => void save()} data-testid="price-table-save">
          {t('settings.save', { section: t('settings.ratio.tableTitle') })}
        </Button>
        <Popconfirm
          title={t('settings.ratio.discardConfirm')}
          onConfirm={() => setRows(toRows(readMaps({ ModelPrice, ModelRatio, CompletionRatio })))}
        >
          <span style={{ display: 'inline-block' }}>
            <Button>{t('settings.ratio.discard')}</Button>
          </span>
        </Popconfirm>
      </Space>
    </Card>
  );
}
