import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, FormRow, Input, Space, Toast } from '@console/kit';
import { Select } from '@console/kit/data';
import { addCustomModels } from '../channel-form';

interface ModelsFieldProps {
  models: string[];
  onChange(models: string[]): void;
  /** Models the gateway knows for the chosen type ("fill related models"). */
  relatedModels: readonly string[];
  allModels: string[];
  fetchUpstream(): Promise<string[]>;
}

/** The channel's model list: pick, fill related or all, fetch from the provider, or type names. */
export function ModelsField({ models, onChange, relatedModels, allModels, fetchUpstream }: ModelsFieldProps) {
  const { t } = useTranslation('admin');
  const [custom, setCustom] = useState('');
  const [fetching, setFetching] = useState(false);
  const options = [...new Set([...models, ...relatedModels, ...allModels])].map((name) => ({ label: name, value: name }));

  const addCustom = () => {
    const { models: next, duplicates } = addCustomModels(models, custom);
    if (duplicates.length) Toast.warning(t('channels.error.someExist', { models: duplicates.join(', ') }));
    onChange(next);
    setCustom('');
  };
  const fetchModels = async () => {
    setFetching(true);
    try {
      const fetched = await fetchUpstream();
      onChange(fetched);
      Toast.success(t('channels.fetched', { count: fetched.length }));
    } catch {
      // Already reported by the API client.
    } finally {
      setFetching(false);
    }
  };

  return (
    <FormRow
      label={t('channels.field.models')}
      extra={
        <Space vertical align="start" style={{ width: '100%' }}>
          <Space wrap spacing={4}>
            <Button size="small" onClick={() => onChange([...new Set([...models, ...relatedModels])])} data-testid="fill-related-models">
              {t('channels.field.fillRelated')}
            </Button>
            <Button size="small" onClick={() => onChange([...new Set([...models, ...allModels])])}>
              {t('channels.field.fillAll')}
            </Button>
            <Button size="small" loading={fetching} onClick={() => void fetchModels()} data-testid="fetch-upstream-models">
              {t('channels.field.fetchUpstream')}
            </Button>
            <Button size="small" type="danger" onClick={() => onChange([])}>
              {t('channels.field.clearModels')}
            </Button>
          </Space>
          <Input
            value={custom}
            onChange={setCustom}
            onEnterPress={addCustom}
            placeholder={t('channels.field.customModels')}
            addonAfter={
              <Button size="small" theme="borderless" onClick={addCustom}>
                {t('channels.field.add')}
              </Button>
            }
            data-testid="custom-models"
          />
        </Space>
      }
    >
      <Select
        multiple
        filter
        value={models}
        onChange={(value) => onChange(Array.isArray(value) ? value.map(String) : [])}
        optionList={options}
        maxTagCount={30}
        style={{ width: '100%' }}
        placeholder={t('channels.field.modelsPlaceholder')}
        data-testid="channel-models"
      />
    </FormRow>
  );
}
