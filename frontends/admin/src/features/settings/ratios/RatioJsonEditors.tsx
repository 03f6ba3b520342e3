import { useTranslation } from 'react-i18next';
import { Button, Toast } from '@console/kit';
import { Popconfirm } from '@console/kit/data';
import { optionsApi } from '../api';
import { Section, SwitchField, TextAreaField } from '../fields';
import { optionLabel } from '../label';
import type { Settings } from '../useSettings';

const KEYS = [
  'ModelPrice',
  'ModelRatio',
  'CacheRatio',
  'CreateCacheRatio',
  'ImageRatio',
  'CompletionRatio',
  'AudioRatio',
  'AudioCompletionRatio',
  'GroupRatio',
  'UserUsableGroups',
  'group_ratio_setting.group_special_usable_group',
  'AutoGroups',
  'tool_price_setting.prices',
  'billing_setting.billing_mode',
  'billing_setting.billing_expr',
  'billing_setting.minimum_charge',
  'ExposeRatioEnabled',
  'DefaultUseAutoGroup',
] as const;

const SWITCHES: readonly string[] = ['ExposeRatioEnabled', 'DefaultUseAutoGroup'];

/** The ratio and price maps as JSON; nothing is saved while any of them does not parse. */
export function RatioJsonEditors({ settings }: { settings: Settings }) {
  const { t } = useTranslation('admin');
  const reset = async () => {
    try {
      await optionsApi.resetModelRatios();
      Toast.success(t('settings.ratio.resetDone'));
      await settings.reload();
    } catch {
      // Already reported by the API client.
    }
  };
  return (
    <Section
      title={t('settings.ratio.jsonTitle')}
      settings={settings}
      keys={KEYS}
      testId="section-ratios"
      extra={
        <Popconfirm title={t('settings.ratio.resetConfirm')} onConfirm={() => void reset()}>
          <span style={{ display: 'inline-block' }}>
            <Button type="danger">{t('settings.ratio.reset')}</Button>
          </span>
        </Popconfirm>
      }
    >
      {KEYS.filter((key) => !SWITCHES.includes(key)).map((key) => (
        <TextAreaField
          key={key}
          settings={settings}
          name={key}
          label={optionLabel(t, key)}
          hint={t(`settings.hint.${key.replace(/\./g, '_')}`)}
          rows={6}
        />
      ))}
      <SwitchField settings={settings} name="ExposeRatioEnabled" label={optionLabel(t, 'ExposeRatioEnabled')} />
      <SwitchField
        settings={settings}
        name="DefaultUseAutoGroup"
        label={optionLabel(t, 'DefaultUseAutoGroup')}
        hint={t('settings.hint.DefaultUseAutoGroup')}
      />
    </Section>
  );
}
