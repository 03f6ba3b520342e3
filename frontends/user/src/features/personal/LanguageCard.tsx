import { useTranslation } from 'react-i18next';
import { Card, LANGUAGES, setLanguage, type Language } from '@console/kit';
import { Select } from '@console/kit/data';

const NAMES: Record<string, string> = { zh: '简体中文', en: 'English' };

/** The console language, kept in the browser like the top bar's menu. */
export function LanguageCard() {
  const { t, i18n } = useTranslation('user');
  return (
    <Card title={t('personal.language')} style={{ marginBottom: 16 }}>
      <div data-testid="personal-language" style={{ display: 'inline-block' }}>
        <Select
          value={i18n.language}
          onChange={(value) => void setLanguage(value as Language)}
          optionList={LANGUAGES.map((lang) => ({ value: lang, label: NAMES[lang] ?? lang }))}
          style={{ width: 200 }}
        />
      </div>
    </Card>
  );
}
