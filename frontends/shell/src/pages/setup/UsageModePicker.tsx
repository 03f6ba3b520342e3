import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Modal, Radio, RadioGroup, Typography } from '@console/kit';

export type UsageMode = 'external' | 'self' | 'demo';

export function modeFlags(mode: UsageMode) {
  return { SelfUseModeEnabled: mode === 'self', DemoSiteEnabled: mode === 'demo' };
}

const MODES: UsageMode[] = ['external', 'self', 'demo'];

export function UsageModePicker({ value, onChange }: { value: UsageMode; onChange(mode: UsageMode): void }) {
  const { t } = useTranslation('shell');
  const [helpOpen, setHelpOpen] = useState(false);
  return (
    <div>
      <Typography.Text strong style={{ display: 'block', marginBottom: 8 }}>
        {t('setup.usageMode')}{' '}
        <Button theme="borderless" size="small" onClick={() => setHelpOpen(true)}>
          {t('setup.modeHelp')}
        </Button>
      </Typography.Text>
      <RadioGroup type="card" direction="vertical" value={value} onChange={(event) => onChange(event.target.value as UsageMode)}>
        {MODES.map((mode) => (
          <Radio key={mode} value={mode} extra={t(`setup.mode.${mode}Desc`)}>
            {t(`setup.mode.${mode}`)}
          </Radio>
        ))}
      </RadioGroup>
      <Modal title={t('setup.usageMode')} visible={helpOpen} onCancel={() => setHelpOpen(false)} footer={null}>
        {MODES.map((mode) => (
          <Typography.Paragraph key={mode}>
            <strong>{t(`setup.mode.${mode}`)}</strong>: {t(`setup.mode.${mode}Help`)}
          </Typography.Paragraph>
        ))}
      </Modal>
    </div>
  );
}
