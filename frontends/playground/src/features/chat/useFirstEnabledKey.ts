import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Toast, api, type Page } from '@console/kit';

const TOKEN_ENABLED = 1;
/** Spec 001 §9: the chat pages look at the first 100 tokens. */
const TOKEN_PAGE_SIZE = 100;
/** Spec 001 §8: the error stays readable for 1.5 s before the tokens page opens. */
export const NO_TOKEN_REDIRECT_MS = 1500;

interface TokenRow {
  id: number;
  status: number;
}

export type FirstKey = { state: 'loading' } | { state: 'none' } | { state: 'failed' } | { state: 'ready'; key: string };

/**
 * The user's first enabled token, with its full key (lists only carry masked keys). With none, the
 * user is told so and sent to /token to create or enable one. Nothing is fetched until `enabled`.
 */
export function useFirstEnabledKey(enabled: boolean): FirstKey {
  const { t } = useTranslation('playground');
  const navigate = useNavigate();
  const [result, setResult] = useState<FirstKey>({ state: 'loading' });

  useEffect(() => {
    if (!enabled) return;
    let cancelled = false;
    let redirect: ReturnType<typeof setTimeout> | undefined;
    const load = async (): Promise<FirstKey> => {
      const page = await api.get<Page<TokenRow> | TokenRow[]>('/api/token/', { query: { p: 1, size: TOKEN_PAGE_SIZE } });
      const rows = Array.isArray(page) ? page : (page?.items ?? []);
      const first = rows.find((row) => row.status === TOKEN_ENABLED);
      if (!first) return { state: 'none' };
      const { key } = await api.post<{ key: string }>(`/api/token/${first.id}/key`);
      return { state: 'ready', key };
    };
    load().then(
      (found) => {
        if (cancelled) return;
        setResult(found);
        if (found.state === 'none') {
          Toast.error(t('chat.noEnabledToken'));
          redirect = setTimeout(() => navigate('/token'), NO_TOKEN_REDIRECT_MS);
        }
      },
      // The API client has already shown why (toast, or the login page for an expired session).
      () => !cancelled && setResult({ state: 'failed' }),
    );
    return () => {
      cancelled = true;
      clearTimeout(redirect);
    };
  }, [enabled, navigate, t]);

  return result;
}
