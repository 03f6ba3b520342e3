import { api } from '../api/client';
import { createStore, useStore } from '../storage/store';
import { STORAGE_KEYS, readJson, writeJson } from '../storage/keys';

/** GET /api/status data: site-wide switches every app reads. */
export interface SiteStatus {
  system_name: string;
  logo: string;
  footer_html: string;
  quota_per_unit: number;
  display_in_currency: boolean;
  quota_display_type?: string;
  enable_drawing: boolean;
  enable_task: boolean;
  enable_data_export: boolean;
  chats?: unknown;
  data_export_default_time?: string;
  default_collapse_sidebar: boolean;
  mj_notify_enabled?: boolean;
  chat_link?: string;
  chat_link2?: string;
  docs_link: string;
  version: string;
  start_time: number;
  turnstile_check: boolean;
  turnstile_site_key: string;
  email_verification: boolean;
  github_oauth: boolean;
  github_client_id: string;
  oidc_enabled: boolean;
  oidc_client_id: string;
  oidc_authorization_endpoint: string;
  linuxdo_oauth: boolean;
  linuxdo_client_id: string;
  wechat_login: boolean;
  wechat_qrcode: string;
  telegram_oauth: boolean;
  telegram_bot_name: string;
  setup: boolean;
  self_use_mode_enabled: boolean;
  demo_site_enabled: boolean;
  top_up_link?: string;
  server_address?: string;
  price?: number;
  passkey_login?: boolean;
  checkin_enabled?: boolean;
  /** DefaultUseAutoGroup: the token form lists `auto` first and preselects it for a new token. */
  default_use_auto_group?: boolean;
  discord_oauth?: boolean;
  discord_client_id?: string;
  user_agreement_enabled?: boolean;
  privacy_policy_enabled?: boolean;
  custom_oauth_providers?: {
    id: number;
    name: string;
    slug: string;
    icon: string;
    client_id: string;
    authorization_endpoint: string;
    scopes: string;
  }[];
}

export const DEFAULT_QUOTA_PER_UNIT = 500_000;

export const statusStore = createStore<Partial<SiteStatus>>(readJson<Partial<SiteStatus>>(STORAGE_KEYS.status) ?? {});

/** Cached whole under `status`, plus the separate keys new-api's console also keeps. */
function persist(status: Partial<SiteStatus>): void {
  writeJson(STORAGE_KEYS.status, status);
  const flags: [string, unknown][] = [
    [STORAGE_KEYS.systemName, status.system_name],
    [STORAGE_KEYS.logo, status.logo],
    [STORAGE_KEYS.footerHtml, status.footer_html],
    [STORAGE_KEYS.quotaPerUnit, status.quota_per_unit],
    [STORAGE_KEYS.displayInCurrency, status.display_in_currency],
    [STORAGE_KEYS.enableDrawing, status.enable_drawing],
    [STORAGE_KEYS.enableTask, status.enable_task],
    [STORAGE_KEYS.enableDataExport, status.enable_data_export],
    [STORAGE_KEYS.defaultCollapseSidebar, status.default_collapse_sidebar],
    [STORAGE_KEYS.docsLink, status.docs_link],
    [STORAGE_KEYS.chats, status.chats === undefined ? undefined : JSON.stringify(status.chats)],
  ];
  for (const [key, value] of flags) {
    if (value === undefined || value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, String(value));
  }
}

export async function loadStatus(): Promise<Partial<SiteStatus>> {
  const status = await api.get<SiteStatus>('/api/status', { quiet: true });
  persist(status);
  statusStore.set(status);
  return status;
}

export function useStatus(): Partial<SiteStatus> {
  return useStore(statusStore);
}

export function quotaPerUnit(): number {
  return statusStore.get().quota_per_unit || DEFAULT_QUOTA_PER_UNIT;
}
