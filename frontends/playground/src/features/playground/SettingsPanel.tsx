import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Typography } from '@console/kit';
import { InputNumber, Select, Slider, Switch, TextArea } from '@console/kit/data';
import { TEMPERATURE, type PlaygroundSettings } from './settings';
import { useModelOptions } from './useModelOptions';

interface SettingsPanelProps {
  settings: PlaygroundSettings;
  update<K extends keyof PlaygroundSettings>(key: K, value: PlaygroundSettings[K]): void;
  reset(): void;
}

function Label({ children, extra }: { children: string; extra?: ReactNode }) {
  return (
    <div style={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', margin: '16px 0 6px' }}>
      <Typography.Text strong>{children}</Typography.Text>
      {extra}
    </div>
  );
}

export function SettingsPanel({ settings, update, reset }: SettingsPanelProps) {
  const { t } = useTranslation('playground');
  const { groups, models } = useModelOptions();
  // The saved model stays pickable even when the list no longer has it (the relay then explains why).
  const modelOptions = [...new Set([settings.model, ...models])].filter(Boolean).map((name) => ({ value: name, label: name }));
  const groupOptions = Object.entries(groups).map(([name, info]) => ({
    value: name,
    label: `${name}${info.desc ? ` · ${info.desc}` : ''} (${info.ratio}x)`,
  }));
  // Likewise the saved group shows by name while the list loads (or after it stopped being usable).
  if (settings.group && !(settings.group in groups)) groupOptions.unshift({ value: settings.group, label: settings.group });
  return (
    <div style={{ padding: 16 }} data-testid="playground-settings">
      <Label>{t('group')}</Label>
      <Select
        value={settings.group || undefined}
        placeholder={t('userGroup')}
        onChange={(value) => update('group', String(value ?? ''))}
        optionList={groupOptions}
        showClear
        style={{ width: '100%' }}
        data-testid="group-select"
      />
      <Label>{t('model')}</Label>
      {/* allowCreate: a model the list does not show (a new one, a mapped name) can still be typed in. */}
      <Select
        filter
        allowCreate
        value={settings.model}
        onChange={(value) => update('model', String(value))}
        optionList={modelOptions}
        style={{ width: '100%' }}
        data-testid="model-select"
      />
      <Label>{t('temperature', { value: settings.temperature })}</Label>
      <Slider
        step={TEMPERATURE.step}
        min={TEMPERATURE.min}
        max={TEMPERATURE.max}
        value={settings.temperature}
        onChange={(value) => update('temperature', Number(value))}
      />
      <Label
        extra={
          <Switch
            size="small"
            checked={settings.topPEnabled}
            onChange={(on) => update('topPEnabled', on)}
            aria-label="top_p"
            data-testid="top-p-switch"
          />
        }
      >
        {t('topP', { value: settings.topPEnabled ? settings.topP : t('off') })}
      </Label>
      <Slider
        step={0.05}
        min={0.05}
        max={1}
        value={settings.topP}
        disabled={!settings.topPEnabled}
        onChange={(value) => update('topP', Number(value))}
      />
      <Label>{t('maxTokens')}</Label>
      <InputNumber
        value={settings.maxTokens}
        min={0}
        precision={0}
        onChange={(value) => update('maxTokens', Math.max(0, Number.parseInt(String(value), 10) || 0))}
        style={{ width: '100%' }}
        data-testid="max-tokens"
      />
      <Label
        extra={
          <Switch
            size="small"
            checked={settings.stream}
            onChange={(on) => update('stream', on)}
            aria-label={t('stream')}
            data-testid="stream-switch"
          />
        }
      >
        {t('stream')}
      </Label>
      <Label>{t('systemPrompt')}</Label>
      <TextArea
        value={settings.systemPrompt}
        onChange={(value) => update('systemPrompt', value)}
        autosize={{ minRows: 3, maxRows: 10 }}
        data-testid="system-prompt"
      />
      <Button theme="borderless" type="tertiary" onClick={reset} style={{ marginTop: 12 }}>
        {t('resetSettings')}
      </Button>
    </div>
  );
}
