import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfigProvider, LocaleProvider, semiEnUS, semiZhCN } from '../ui/semi';

/**
 * Semi's locale and config providers, set once at the root (the shell, or a remote running standalone).
 * Remotes render inside this tree, so their Semi components follow the console's language.
 */
export function ConsoleProviders({ children }: { children: ReactNode }) {
  const { i18n } = useTranslation();
  const locale = i18n.language === 'en' ? semiEnUS : semiZhCN;
  return (
    <LocaleProvider locale={locale}>
      <ConfigProvider locale={locale}>{children}</ConfigProvider>
    </LocaleProvider>
  );
}
