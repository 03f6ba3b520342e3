import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Card, Empty, Input, Space, Toast, Typography } from '@console/kit';
import { optionsApi } from '../api';
import type { Settings } from '../useSettings';
import { isNumeric, modelsWithoutRatio, readMaps } from './price-table';

/** Enabled models without a price or ratio, each with a ratio or a per-request price to set. */
export function UnsetModels({ settings }: { settings: Settings }) {
  const { t } = useTranslation('admin');
  const [enabled, setEnabled] = useState<string[]>([]);
  const [values, setValues] = useState<Record<string, { ratio: string; price: string }>>({});

  useEffect(() => {
    optionsApi.enabledModels().then(setEnabled, () => undefined);
  }, []);

  const maps = readMaps(settings.stored);
  const missing = modelsWithoutRatio(enabled, maps);
  const draftFor = (name: string) => values[name] ?? { ratio: '', price: '' };
  const setValue = (name: string, field: 'ratio' | 'price', value: string) =>
    setValues((current) => ({ ...current, [name]: { ...draftFor(name), [field]: value } }));

  const save = async (name: string) => {
    const { ratio, price } = draftFor(name);
    if (!isNumeric(ratio) || !isNumeric(price)) return Toast.error(t('settings.ratio.notNumber'));
    if (!ratio.trim() && !price.trim()) return Toast.error(t('settings.ratio.missing'));
    if (price.trim()) await settings.save(['ModelPrice'], { ModelPrice: JSON.stringify({ ...maps.ModelPrice, [name]: Number(price) }) });
    else await settings.save(['ModelRatio'], { ModelRatio: JSON.stringify({ ...maps.ModelRatio, [name]: Number(ratio) }) });
  };

  return (
    <Card title={t('settings.ratio.unsetTitle')} style={{ marginBottom: 16 }}>
      <Typography.Paragraph type="tertiary">{t('settings.ratio.unsetHint')}</Typography.Paragraph>
      {missing.length === 0 ? (
        <Empty description={t('settings.ratio.unsetNone')} />
      ) : (
        missing.map((name) => (
          <Space key={name} style={{ display: 'flex', marginBottom: 8 }} wrap>
            <Typography.Text strong style={{ minWidth: 200, display: 'inline-block' }}>
              {name}
            </Typography.Text>
            <Input
              size="small"
              value={draftFor(name).ratio}
              onChange={(value) => setValue(name, 'ratio', value)}
              placeholder={t('settings.ratio.modelRatio')}
              style={{ width: 120 }}
            />
            <Input
              size="small"
              value={draftFor(name).price}
              onChange={(value) => setValue(name, 'price', value)}
              placeholder={t('settings.ratio.perRequest')}
              style={{ width: 120 }}
            />
            <Button size="small" onClick={() => void save(name)}>
              {t('settings.ratio.add')}
            </Button>
          </Space>
        ))
      )}
    </Card>
  );
}
