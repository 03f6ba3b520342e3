import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { STORAGE_KEYS } from '../storage/keys';
import { kitResources } from './kit-messages';

export type Language = 'zh' | 'en';
export const LANGUAGES: readonly Language[] = ['zh', 'en'];

/** Chinese is the product's default and its fallback, whatever the browser says. */
export const DEFAULT_LANGUAGE: Language = 'zh';

export interface NamespaceResources {
  zh: Record<string, unknown>;
  en: Record<string, unknown>;
}

export function storedLanguage(): Language {
  const stored = localStorage.getItem(STORAGE_KEYS.language);
  return stored === 'en' || stored === 'zh' ? stored : DEFAULT_LANGUAGE;
}

/** Safe to call from the shell and from each remote's standalone bootstrap: only the first call initialises. */
export function initI18n(): typeof i18n {
  if (!i18n.isInitialized) {
    void i18n.use(initReactI18next).init({
      lng: storedLanguage(),
      fallbackLng: DEFAULT_LANGUAGE,
      supportedLngs: [...LANGUAGES],
      ns: ['kit'],
      defaultNS: 'kit',
      interpolation: { escapeValue: false },
      returnNull: false,
      initAsync: false,
      resources: {},
    });
  }
  registerNamespace('kit', kitResources);
  return i18n;
}

/** Each app owns one namespace with English keys; remotes call this before their first render. */
export function registerNamespace(namespace: string, resources: NamespaceResources): void {
  for (const language of LANGUAGES) i18n.addResourceBundle(language, namespace, resources[language], true, true);
}

export async function setLanguage(language: Language): Promise<void> {
  localStorage.setItem(STORAGE_KEYS.language, language);
  await i18n.changeLanguage(language);
  document.documentElement.lang = language === 'zh' ? 'zh-CN' : 'en';
}

export { i18n };
