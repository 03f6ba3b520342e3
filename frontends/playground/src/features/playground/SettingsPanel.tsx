import { useTranslation } from 'react-i18next';
import { Typography } from '@console/kit';
import { InputNumber, Select, Slider, TextArea } from '@console/kit/data';
import type { PlaygroundSettings } from './settings';
import { useModelOptions } from './useModelOptions';

interface SettingsPanelProps {
  settings: PlaygroundSettings;
  update<K extends keyof PlaygroundSettings>(key: K, value: PlaygroundSettings[K]): void;
}

function Label({ children }: { children: string }) {
  return (
    <Typography.Text strong style={{ display: 'block', margin: '16px 0 6px' }}>
      {children}
    </Typography.Text>
  );
}

export function SettingsPanel({ settings, update }: SettingsPanelProps) {
  const { t } = useTranslation('playground');
  const { groups, models } = useModelOptions();
  const modelOptions = [...new Set([settings.model, ...models])].map((name) => ({ value: name, label: name }));
  return (
    <div style={{ padding: 16 }} data-testid="playground-settings">
      <Label>{t('group')}</Label>
      <Select
        value={settings.group || undefined}
        placeholder={t('userGroup')}
        onChange={(value) => update('group', String(value ?? ''))}
        optionList={Object.entries(groups).map(([name, info]) => ({ value: name, label: `${name} (${info.ratio})` }))}
        showClear
        style={{ width: '100%' }}
      />
      <Label>{t('model')}</Label>
      <Select filter value={settings.model} onChange={(value) => update('model', String(value))} optionList={modelOptions} style={{ width: '100%' }} data-testid="model-select" />
      <Label>{t('temperature', { value: settings.temperature })}</Label>
      <Slider step={0.1} min={0.1} max={1} value={settings.temperature} onChange={(value) => update('temperature', Number(value))} />
      <Label>{t('maxTokens')}</Label>
      <InputNumber value={settings.maxTokens} min={0} precision={0} onChange={(value) => update('maxTokens', Number.parseInt(String(value), 10) || 0)} style={{ width: '100%' }} />
      <Label>{t('systemPrompt')}</Label>
      <TextArea value={settings.systemPrompt} onChange={(value) => update('systemPrompt', value)} autosize={{ minRows: 3, maxRows: 10 }} />
    </div>
  );
}
