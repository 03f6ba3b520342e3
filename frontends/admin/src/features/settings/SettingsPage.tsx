import { useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Empty, RadioGroup, Spin, useAuth } from '@console/kit';
import { useState } from 'react';
import { ModelSections, RateLimitSections } from './sections/ModelSections';
import { OperationSections } from './sections/OperationSections';
import { OtherSections } from './sections/OtherSections';
import { SystemSections } from './sections/SystemSections';
import { PriceTableEditor } from './ratios/PriceTableEditor';
import { RatioJsonEditors } from './ratios/RatioJsonEditors';
import { UnsetModels } from './ratios/UnsetModels';
import { useSettings, type Settings } from './useSettings';

const TABS = ['operation', 'ratelimit', 'models', 'system', 'other'] as const;
type Tab = (typeof TABS)[number];
const RATIO_VIEWS = ['json', 'table', 'unset'] as const;

/** The operation tab's ratio sub-tabs (spec 001 §2): model ratio settings, visual editor, models without ratios. */
function RatioSettings({ settings }: { settings: Settings }) {
  const { t } = useTranslation('admin');
  const [view, setView] = useState<(typeof RATIO_VIEWS)[number]>('json');
  return (
    <>
      <RadioGroup
        type="button"
        value={view}
        onChange={(event) => setView(event.target.value as typeof view)}
        options={RATIO_VIEWS.map((value) => ({ label: t(`settings.ratio.view.${value}`), value }))}
        style={{ marginBottom: 12 }}
      />
      {view === 'json' && <RatioJsonEditors settings={settings} />}
      {view === 'table' && <PriceTableEditor settings={settings} />}
      {view === 'unset' && <UnsetModels settings={settings} />}
    </>
  );
}

function SettingsTabs() {
  const { t } = useTranslation('admin');
  const [params, setParams] = useSearchParams();
  const settings = useSettings();
  const requested = params.get('tab') as Tab | null;
  const tab: Tab = requested && TABS.includes(requested) ? requested : 'operation';
  return (
    <div data-testid="settings-page">
      <RadioGroup
        type="button"
        buttonSize="large"
        value={tab}
        onChange={(event) => setParams({ tab: String(event.target.value) })}
        options={TABS.map((value) => ({ label: t(`settings.tab.${value}`), value }))}
        style={{ marginBottom: 16 }}
        data-testid="settings-tabs"
      />
      {!settings.loaded ? (
        <Spin style={{ display: 'block', margin: 48 }} />
      ) : (
        <>
          {tab === 'operation' && (
            <>
              <RatioSettings settings={settings} />
              <OperationSections settings={settings} />
            </>
          )}
          {tab === 'ratelimit' && <RateLimitSections settings={settings} />}
          {tab === 'models' && <ModelSections settings={settings} />}
          {tab === 'system' && <SystemSections settings={settings} />}
          {tab === 'other' && <OtherSections settings={settings} />}
        </>
      )}
    </div>
  );
}

/** /setting?tab=…: every system option, for the super admin only (spec 001 §2; GET /api/option is root-only). */
export function SettingsPage() {
  const { t } = useTranslation('admin');
  const { isRoot } = useAuth();
  if (!isRoot) return <Empty title={t('settings.forbidden')} style={{ padding: 48 }} />;
  return <SettingsTabs />;
}
