import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Card, TelegramWidget, Typography, startOAuth, useStatus, type OAuthProvider } from '@console/kit';
import type { SelfUser } from '../self/useSelf';
import { EmailBindModal } from './EmailBindModal';
import { WeChatBindModal } from './WeChatBindModal';

/** One binding row: what is bound now and the action; shown only when the site enables that login. */
function BindingRow({ label, value, action }: { label: string; value: string; action: ReactNode }) {
  const { t } = useTranslation('user');
  return (
    <div style={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', padding: '8px 0', gap: 12 }}>
      <div>
        <Typography.Text strong>{label}</Typography.Text>
        <Typography.Text type="tertiary" style={{ display: 'block' }}>
          {value || t('personal.bind.none')}
        </Typography.Text>
      </div>
      {action}
    </div>
  );
}

/** Email, WeChat, GitHub, OIDC, Linux DO and Telegram bindings. */
export function BindingsCard({ user, onChanged }: { user: SelfUser | null; onChanged(): void }) {
  const { t } = useTranslation('user');
  const status = useStatus();
  const [emailOpen, setEmailOpen] = useState(false);
  const [wechatOpen, setWechatOpen] = useState(false);
  const oauth = (provider: OAuthProvider, bound: string) => (
    <Button disabled={Boolean(bound)} onClick={() => void startOAuth(provider, status).catch(() => undefined)}>
      {bound ? t('personal.bind.bound') : t('personal.bind.bind')}
    </Button>
  );

  return (
    <Card title={t('personal.bind.title')} style={{ marginBottom: 16 }}>
      <BindingRow
        label={t('personal.bind.email')}
        value={user?.email ?? ''}
        action={
          <Button onClick={() => setEmailOpen(true)} data-testid="bind-email-open">
            {user?.email ? t('personal.bind.change') : t('personal.bind.bind')}
          </Button>
        }
      />
      {status.wechat_login && (
        <BindingRow
          label={t('personal.bind.wechat')}
          value={user?.wechat_id ? t('personal.bind.bound') : ''}
          action={
            <Button disabled={Boolean(user?.wechat_id)} onClick={() => setWechatOpen(true)}>
              {user?.wechat_id ? t('personal.bind.bound') : t('personal.bind.bind')}
            </Button>
          }
        />
      )}
      {status.github_oauth && <BindingRow label="GitHub" value={user?.github_id ?? ''} action={oauth('github', user?.github_id ?? '')} />}
      {status.oidc_enabled && <BindingRow label="OIDC" value={user?.oidc_id ?? ''} action={oauth('oidc', user?.oidc_id ?? '')} />}
      {status.linuxdo_oauth && (
        <BindingRow label="Linux DO" value={user?.linux_do_id ?? ''} action={oauth('linuxdo', user?.linux_do_id ?? '')} />
      )}
      {status.telegram_oauth && status.telegram_bot_name && (
        <BindingRow
          label="Telegram"
          value={user?.telegram_id ?? ''}
          action={
            user?.telegram_id ? (
              <Button disabled>{t('personal.bind.bound')}</Button>
            ) : (
              <TelegramWidget botName={status.telegram_bot_name} authUrl="/api/oauth/telegram/bind" />
            )
          }
        />
      )}
      <EmailBindModal visible={emailOpen} onClose={() => setEmailOpen(false)} onBound={onChanged} />
      <WeChatBindModal visible={wechatOpen} qrcode={status.wechat_qrcode ?? ''} onClose={() => setWechatOpen(false)} onBound={onChanged} />
    </Card>
  );
}
