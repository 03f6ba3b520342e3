import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Toast, copyText } from '@console/kit';
import { TOKEN_STATUS, tokensApi, withPrefix, type Token } from './api';
import { buildChatUrl } from './chat-links';
import type { TokenActions } from './columns';

interface Handlers {
  patchRow(id: number, patch: Partial<Token>): void;
  reload(): Promise<void>;
  edit(id: number): void;
}

/** Row actions; each one reports its own outcome, failures were already shown by the API client. */
export function useTokenActions({ patchRow, reload, edit }: Handlers): TokenActions {
  const { t } = useTranslation('user');
  return useMemo(() => {
    const fullKey = async (token: Token) => withPrefix((await tokensApi.revealKey(token.id)).key);
    const ignore = () => undefined;
    return {
      copyKey: (token) => void fullKey(token).then((key) => copyText(key, t('tokens.copied')), ignore),
      openChat: (token, link) => {
        if (!link) return void Toast.warning(t('tokens.noChatLinks'));
        void fullKey(token).then((key) => window.open(buildChatUrl(link.template, key), '_blank', 'noopener'), ignore);
      },
      toggle: (token) => {
        const status = token.status === TOKEN_STATUS.enabled ? TOKEN_STATUS.disabled : TOKEN_STATUS.enabled;
        void tokensApi.setStatus(token.id, status).then((updated) => {
          patchRow(token.id, { status: updated?.status ?? status });
          Toast.success(t('tokens.done'));
        }, ignore);
      },
      edit: (token) => edit(token.id),
      remove: (token) =>
        void tokensApi.remove(token.id).then(() => {
          Toast.success(t('tokens.deleted'));
          return reload();
        }, ignore),
    };
  }, [t, patchRow, reload, edit]);
}
