import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { IconGithubLogo } from '@douyinfe/semi-icons';
import { Button, Divider, Input, Modal, Space, Toast, api, storeUser, useStatus, type StoredUser } from '@console/kit';
import { startOAuth } from './oauth';
import { TelegramLogin } from './TelegramLogin';

/** GitHub, OIDC, Linux DO, WeChat and Telegram buttons, each only when the site enables it. */
export function ThirdPartyLogins({ affCode }: { affCode?: string }) {
  const { t } = useTranslation('shell');
  const status = useStatus();
  const navigate = useNavigate();
  const [wechatOpen, setWechatOpen] = useState(false);
  const [wechatCode, setWechatCode] = useState('');
  const custom = status.custom_oauth_providers ?? [];
  const any =
    status.github_oauth ||
    status.oidc_enabled ||
    status.linuxdo_oauth ||
    status.discord_oauth ||
    status.wechat_login ||
    status.telegram_oauth ||
    custom.length > 0;
  if (!any) return null;

  const submitWechat = async () => {
    const user = await api.get<StoredUser>('/api/oauth/wechat', { query: { code: wechatCode } }).catch(() => null);
    if (!user) return;
    storeUser(user);
    Toast.success(t('login.success'));
    setWechatOpen(false);
    // The spec lands third-party logins on the home page (a password login lands on /token).
    navigate('/');
  };

  return (
    <>
      <Divider margin={16}>{t('login.or')}</Divider>
      <Space wrap style={{ justifyContent: 'center', width: '100%' }}>
        {status.github_oauth && (
          <Button icon={<IconGithubLogo />} onClick={() => void startOAuth('github', status, affCode)}>
            {t('login.github')}
          </Button>
        )}
        {status.oidc_enabled && <Button onClick={() => void startOAuth('oidc', status, affCode)}>{t('login.oidc')}</Button>}
        {status.linuxdo_oauth && <Button onClick={() => void startOAuth('linuxdo', status, affCode)}>{t('login.linuxdo')}</Button>}
        {status.discord_oauth && <Button onClick={() => void startOAuth('discord', status, affCode)}>Discord</Button>}
        {status.wechat_login && <Button onClick={() => setWechatOpen(true)}>{t('login.wechat')}</Button>}
        {custom.map((p) => (
          <Button key={p.slug} onClick={() => void startOAuth(p.slug, status, affCode)} data-testid={`oauth-${p.slug}`}>
            {p.name}
          </Button>
        ))}
      </Space>
      {status.telegram_oauth && status.telegram_bot_name && <TelegramLogin botName={status.telegram_bot_name} />}
      <Modal title={t('login.wechat')} visible={wechatOpen} onCancel={() => setWechatOpen(false)} onOk={() => void submitWechat()}>
        {status.wechat_qrcode && <img src={status.wechat_qrcode} alt="" style={{ width: 200, display: 'block', margin: '0 auto 12px' }} />}
        <p>{t('login.wechatHint')}</p>
        <Input value={wechatCode} onChange={setWechatCode} placeholder={t('login.wechatCode')} />
      </Modal>
    </>
  );
}
