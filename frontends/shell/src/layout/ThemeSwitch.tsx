import { useTranslation } from 'react-i18next';
import { IconMoon, IconSun } from '@douyinfe/semi-icons';
import { Button, useThemeMode } from '@console/kit';

export function ThemeSwitch() {
  const { t } = useTranslation('shell');
  const [mode, setMode] = useThemeMode();
  const next = mode === 'dark' ? 'light' : 'dark';
  return (
    <Button
      theme="borderless"
      data-testid="theme-switch"
      aria-label={t(next === 'dark' ? 'theme.dark' : 'theme.light')}
      icon={mode === 'dark' ? <IconSun /> : <IconMoon />}
      onClick={() => setMode(next)}
    />
  );
}
