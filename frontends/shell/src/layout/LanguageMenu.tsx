import { useTranslation } from 'react-i18next';
import { IconLanguage } from '@douyinfe/semi-icons';
import { Button, Dropdown, setLanguage, type Language } from '@console/kit';

const LANGUAGE_NAMES: Record<Language, string> = { zh: '中文', en: 'English' };

export function LanguageMenu() {
  const { i18n, t } = useTranslation('shell');
  const current = i18n.language === 'en' ? 'en' : 'zh';
  return (
    <Dropdown
      trigger="click"
      position="bottomRight"
      render={
        <Dropdown.Menu>
          {(Object.keys(LANGUAGE_NAMES) as Language[]).map((language) => (
            <Dropdown.Item
              key={language}
              active={language === current}
              data-testid={`language-${language}`}
              onClick={() => void setLanguage(language)}
            >
              {LANGUAGE_NAMES[language]}
            </Dropdown.Item>
          ))}
        </Dropdown.Menu>
      }
    >
      {/* semi-ui-19 positions popups from a DOM node; a Semi component as the trigger has none. */}
      <span style={{ display: 'inline-block' }}>
        <Button theme="borderless" icon={<IconLanguage />} aria-label={t('language')} data-testid="language-menu" />
      </span>
    </Dropdown>
  );
}
