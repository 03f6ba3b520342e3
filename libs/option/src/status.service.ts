import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@gw/core';
import { OptionService } from './option.service.js';
import { SetupStateService } from './setup-state.service.js';

const START_TIME = Math.floor(Date.now() / 1000);

/**
 * new-api fields for features this gateway does not have, with the value new-api gives while they are off or
 * unset (controller/misc.go GetStatus): the CUSTOM quota display type's symbol and rate (operation_setting
 * general_setting defaults), Stripe top-up's unit price (setting.StripeUnitPrice) and the header and admin
 * sidebar module layouts (options never saved read as "", which new-api's console takes as its defaults).
 */
const ABSENT_FEATURES = {
  custom_currency_symbol: '¤',
  custom_currency_exchange_rate: 1,
  stripe_unit_price: 8,
  HeaderNavModules: '',
  SidebarModulesAdmin: '',
} as const;

/** Builds `GET /api/status`: every field of spec 000 §3 and spec 001 §3, plus new-api's. */
@Injectable()
export class StatusService {
  constructor(
    private readonly options: OptionService,
    private readonly setup: SetupStateService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private readonly extensions: (() => Promise<Record<string, unknown>>)[] = [];

  /** Modules above this one add their fields (e.g. `@gw/auth`'s `custom_oauth_providers`). */
  extend(fields: () => Promise<Record<string, unknown>>): void {
    this.extensions.push(fields);
  }

  async status(): Promise<Record<string, unknown>> {
    const base = await this.baseStatus();
    for (const extension of this.extensions) Object.assign(base, await extension());
    return base;
  }

  private async baseStatus(): Promise<Record<string, unknown>> {
    const o = this.options;
    return {
      version: this.config.version,
      start_time: START_TIME,
      setup: await this.setup.refresh(),
      system_name: o.get('SystemName'),
      logo: o.get('Logo'),
      footer_html: o.get('Footer'),
      server_address: o.get('ServerAddress'),
      top_up_link: o.get('TopUpLink'),
      docs_link: o.get('general_setting.docs_link'),
      quota_per_unit: o.get('QuotaPerUnit'),
      display_in_currency: o.get('DisplayInCurrencyEnabled'),
      quota_display_type: o.get('general_setting.quota_display_type'),
      usd_exchange_rate: o.get('USDExchangeRate'),
      price: o.get('Price'),
      min_topup: o.get('MinTopUp'),
      enable_batch_update: this.config.jobs.batchUpdateEnabled,
      enable_drawing: o.get('DrawingEnabled'),
      enable_task: true,
      enable_data_export: o.get('DataExportEnabled'),
      data_export_default_time: o.get('DataExportDefaultTime'),
      default_collapse_sidebar: o.get('DefaultCollapseSidebar'),
      mj_notify_enabled: o.get('MjNotifyEnabled'),
      chats: o.get('Chats'),
      chat_link: '',
      chat_link2: '',
      demo_site_enabled: o.get('DemoSiteEnabled'),
      self_use_mode_enabled: o.get('SelfUseModeEnabled'),
      email_verification: o.get('EmailVerificationEnabled'),
      password_login_enabled: o.get('PasswordLoginEnabled'),
      password_register_enabled: o.get('PasswordRegisterEnabled'),
      register_enabled: o.get('RegisterEnabled'),
      turnstile_check: o.get('TurnstileCheckEnabled'),
      turnstile_site_key: o.get('TurnstileSiteKey'),
      github_oauth: o.get('GitHubOAuthEnabled'),
      github_client_id: o.get('GitHubClientId'),
      linuxdo_oauth: o.get('LinuxDOOAuthEnabled'),
      linuxdo_client_id: o.get('LinuxDOClientId'),
      linuxdo_minimum_trust_level: o.get('LinuxDOMinimumTrustLevel'),
      oidc_enabled: o.get('oidc.enabled'),
      oidc_client_id: o.get('oidc.client_id'),
      oidc_authorization_endpoint: o.get('oidc.authorization_endpoint'),
      wechat_login: o.get('WeChatAuthEnabled'),
      wechat_qrcode: o.get('WeChatAccountQRCodeImageURL'),
      telegram_oauth: o.get('TelegramOAuthEnabled'),
      telegram_bot_name: o.get('TelegramBotName'),
      discord_oauth: o.get('discord.enabled'),
      discord_client_id: o.get('discord.client_id'),
      passkey_login: o.get('passkey.enabled'),
      passkey_display_name: o.get('passkey.rp_display_name') || o.get('SystemName'),
      passkey_rp_id: o.get('passkey.rp_id'),
      passkey_origins: o.get('passkey.origins'),
      passkey_allow_insecure: o.get('passkey.allow_insecure_origin'),
      passkey_user_verification: o.get('passkey.user_verification'),
      passkey_attachment: o.get('passkey.attachment_preference'),
      default_use_auto_group: o.get('DefaultUseAutoGroup'),
      api_info_enabled: false,
      uptime_kuma_enabled: false,
      announcements_enabled: false,
      faq_enabled: false,
      user_agreement_enabled: o.get('legal.user_agreement').trim() !== '',
      privacy_policy_enabled: o.get('legal.privacy_policy').trim() !== '',
      checkin_enabled: o.get('checkin_setting.enabled'),
      ...ABSENT_FEATURES,
    };
  }
}
