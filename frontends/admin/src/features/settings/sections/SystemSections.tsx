import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, Button, Input, isApiError, Modal, Toast } from '@console/kit';
import { optionsApi } from '../api';
import { NumberField, Section, SwitchField, TextAreaField, TextField } from '../fields';
import { optionLabel } from '../label';
import type { Settings } from '../useSettings';
import { EXTRA_SYSTEM_SECTIONS } from './extra-system-sections';

const GENERAL = ['ServerAddress', 'WorkerUrl', 'WorkerValidKey', 'AllowPrivateOutboundUrls'] as const;
const PAYMENT = [
  'PayAddress',
  'EpayId',
  'EpayKey',
  'Price',
  'USDExchangeRate',
  'MinTopUp',
  'CustomCallbackAddress',
  'TopupGroupRatio',
  'PayMethods',
] as const;
const LOGIN = ['PasswordLoginEnabled', 'PasswordRegisterEnabled', 'EmailVerificationEnabled', 'RegisterEnabled'] as const;
const EMAIL_DOMAIN = ['EmailDomainRestrictionEnabled', 'EmailAliasRestrictionEnabled', 'EmailDomainWhitelist'] as const;
const SMTP = ['SMTPServer', 'SMTPPort', 'SMTPAccount', 'SMTPFrom', 'SMTPToken', 'SMTPSSLEnabled'] as const;
const OIDC = [
  'oidc.enabled',
  'oidc.well_known',
  'oidc.client_id',
  'oidc.client_secret',
  'oidc.authorization_endpoint',
  'oidc.token_endpoint',
  'oidc.user_info_endpoint',
] as const;
const GITHUB = ['GitHubOAuthEnabled', 'GitHubClientId', 'GitHubClientSecret'] as const;
const LINUXDO = ['LinuxDOOAuthEnabled', 'LinuxDOClientId', 'LinuxDOClientSecret', 'LinuxDOMinimumTrustLevel'] as const;
const WECHAT = ['WeChatAuthEnabled', 'WeChatServerAddress', 'WeChatServerToken', 'WeChatAccountQRCodeImageURL'] as const;
const TELEGRAM = ['TelegramOAuthEnabled', 'TelegramBotName', 'TelegramBotToken'] as const;
const TURNSTILE = ['TurnstileCheckEnabled', 'TurnstileSiteKey', 'TurnstileSecretKey'] as const;

type T = ReturnType<typeof useTranslation<'admin'>>['t'];

function Fields({ settings, keys, t }: { settings: Settings; keys: readonly string[]; t: T }) {
  return (
    <>
      {keys.map((key) =>
        key.endsWith('Enabled') || key.endsWith('.enabled') ? (
          <SwitchField key={key} settings={settings} name={key} label={optionLabel(t, key)} />
        ) : key === 'SMTPPort' ||
          key === 'Price' ||
          key === 'USDExchangeRate' ||
          key === 'MinTopUp' ||
          key === 'LinuxDOMinimumTrustLevel' ? (
          <NumberField key={key} settings={settings} name={key} label={optionLabel(t, key)} />
        ) : key === 'TopupGroupRatio' || key === 'PayMethods' ? (
          <TextAreaField key={key} settings={settings} name={key} label={optionLabel(t, key)} />
        ) : (
          <TextField key={key} settings={settings} name={key} label={optionLabel(t, key)} />
        ),
      )}
    </>
  );
}

/** Reads authorization, token and userinfo endpoints from the provider's discovery document. */
function OidcDiscovery({ settings }: { settings: Settings }) {
  const { t } = useTranslation('admin');
  const [busy, setBusy] = useState(false);
  const discover = async () => {
    const url = (settings.draft['oidc.well_known'] ?? '').trim();
    if (!/^https?:\/\//i.test(url)) return Toast.error(t('settings.oidc.badUrl'));
    setBusy(true);
    try {
      // Read by the gateway, not by this page: the console's Content-Security-Policy lets the page call only
      // its own origin, and most providers' discovery documents send no CORS headers. The gateway checks the
      // address as it checks every admin-given URL (no private address unless AllowPrivateOutboundUrls).
      const found = await api.post<{ authorization_endpoint: string; token_endpoint: string; user_info_endpoint: string }>(
        '/api/custom-oauth-provider/discovery',
        { well_known_url: url },
        { quiet: true },
      );
      settings.set('oidc.authorization_endpoint', found.authorization_endpoint);
      settings.set('oidc.token_endpoint', found.token_endpoint);
      settings.set('oidc.user_info_endpoint', found.user_info_endpoint);
      Toast.success(t('settings.oidc.filled'));
    } catch (error) {
      // A refusal in the spec's words; HTTP and network errors were shown by the client.
      if (isApiError(error) && error.status === 200) Toast.error(t('settings.oidc.failed'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button loading={busy} onClick={() => void discover()}>
      {t('settings.oidc.discover')}
    </Button>
  );
}

/** Sends a test mail with the saved SMTP settings (save them first). */
function SmtpTest() {
  const { t } = useTranslation('admin');
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const send = async () => {
    if (!email.trim()) return Toast.error(t('settings.smtp.needsEmail'));
    setBusy(true);
    try {
      await optionsApi.smtpTest(email.trim());
      Toast.success(t('settings.smtp.sent', { email: email.trim() }));
    } catch {
      // Already reported by the API client.
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Input value={email} onChange={setEmail} placeholder={t('settings.smtp.testTo')} style={{ width: 220 }} />
      <Button loading={busy} onClick={() => void send()}>
        {t('settings.smtp.test')}
      </Button>
    </>
  );
}

/** ?tab=system (root): site address, payment, login and registration, mail, third-party logins, bot check. */
export function SystemSections({ settings }: { settings: Settings }) {
  const { t } = useTranslation('admin');

  const savePayment = async () => {
    // Payment callbacks are built from ServerAddress: without it no order could ever be confirmed.
    if (!(settings.draft.ServerAddress ?? '').trim()) return Toast.error(t('settings.payment.needsServerAddress'));
    return settings.save(PAYMENT);
  };
  const saveTurnstile = async () => {
    // Turning the check on without a site key would lock every visitor out of login and registration.
    if (settings.draft.TurnstileCheckEnabled === 'true' && !(settings.draft.TurnstileSiteKey ?? '').trim())
      return Toast.error(t('settings.turnstile.needsKeys'));
    return settings.save(TURNSTILE);
  };
  const confirmPasswordLogin = (next: boolean, apply: () => void) => {
    if (next) return apply();
    Modal.confirm({
      title: t('settings.login.confirmDisableTitle'),
      content: t('settings.login.confirmDisable'),
      okText: t('submit'),
      cancelText: t('cancel'),
      onOk: apply,
    });
  };

  return (
    <>
      <Section title={t('settings.section.general')} settings={settings} keys={GENERAL}>
        <TextField
          settings={settings}
          name="ServerAddress"
          label={optionLabel(t, 'ServerAddress')}
          placeholder="https://gateway.example.com"
        />
        <TextField settings={settings} name="WorkerUrl" label={optionLabel(t, 'WorkerUrl')} placeholder="https://" />
        <TextField settings={settings} name="WorkerValidKey" label={optionLabel(t, 'WorkerValidKey')} />
        <SwitchField settings={settings} name="AllowPrivateOutboundUrls" label={optionLabel(t, 'AllowPrivateOutboundUrls')} />
      </Section>
      <Section title={t('settings.section.payment')} settings={settings} keys={PAYMENT} onSave={savePayment} testId="section-payment">
        <Fields settings={settings} keys={PAYMENT} t={t} />
      </Section>
      <Section title={t('settings.section.login')} settings={settings} keys={LOGIN}>
        <SwitchField
          settings={settings}
          name="PasswordLoginEnabled"
          label={optionLabel(t, 'PasswordLoginEnabled')}
          onToggle={confirmPasswordLogin}
        />
        <Fields settings={settings} keys={LOGIN.slice(1)} t={t} />
      </Section>
      <Section title={t('settings.section.emailDomain')} settings={settings} keys={EMAIL_DOMAIN}>
        <Fields settings={settings} keys={EMAIL_DOMAIN} t={t} />
      </Section>
      <Section title={t('settings.section.smtp')} settings={settings} keys={SMTP} extra={<SmtpTest />}>
        <Fields settings={settings} keys={SMTP} t={t} />
      </Section>
      <Section title="OIDC" settings={settings} keys={OIDC} extra={<OidcDiscovery settings={settings} />}>
        <Fields settings={settings} keys={OIDC} t={t} />
      </Section>
      <Section title="GitHub" settings={settings} keys={GITHUB}>
        <Fields settings={settings} keys={GITHUB} t={t} />
      </Section>
      <Section title="Linux DO" settings={settings} keys={LINUXDO}>
        <Fields settings={settings} keys={LINUXDO} t={t} />
      </Section>
      <Section title={t('settings.section.wechat')} settings={settings} keys={WECHAT}>
        <Fields settings={settings} keys={WECHAT} t={t} />
      </Section>
      <Section title="Telegram" settings={settings} keys={TELEGRAM}>
        <Fields settings={settings} keys={TELEGRAM} t={t} />
      </Section>
      <Section title="Turnstile" settings={settings} keys={TURNSTILE} onSave={saveTurnstile}>
        <Fields settings={settings} keys={TURNSTILE} t={t} />
      </Section>
      {EXTRA_SYSTEM_SECTIONS.map(({ key, Component }) => (
        <Component key={key} settings={settings} />
      ))}
    </>
  );
}
