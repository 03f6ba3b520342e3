import { useTranslation } from 'react-i18next';
import { Card, LANGUAGES, type Language, Radio, RadioGroup, setLanguage } from '@console/kit';

const NAMES: Record<Language, string> = { zh: '简体中文', en: 'English' };

/** The console language, kept in the browser like the top bar's menu. */
export function LanguageCard() {
  const { t, i18n } = useTranslation('user');
  return (
    <Card title={t('personal.language')} style={{ marginBottom: 16 }}>
      <div data-testid="personal-language">
        <RadioGroup type="button" value={i18n.language} onChange={(event) => void setLanguage(event.target.value as Language)}>
          {LANGUAGES.map((language) => (
            <Radio key={language} value={language}>
              {NAMES[language]}
            </Radio>
          ))}
        </RadioGroup>
      </div>
    </Card>
  );
}
