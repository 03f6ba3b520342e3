/** localStorage keys, the same names new-api's console uses so a browser switching over keeps its settings. */
export const STORAGE_KEYS = {
  user: 'user',
  status: 'status',
  themeMode: 'theme-mode',
  defaultCollapseSidebar: 'default_collapse_sidebar',
  sidebarCollapsed: 'sidebar-collapsed',
  chats: 'chats',
  footerHtml: 'footer_html',
  language: 'i18nextLng',
  pageSize: 'page-size',
  idSort: 'id-sort',
  channelsTableColumns: 'channels-table-columns',
  logsTableColumns: 'logs-table-columns',
  systemName: 'system_name',
  logo: 'logo',
  docsLink: 'docs_link',
  quotaPerUnit: 'quota_per_unit',
  displayInCurrency: 'display_in_currency',
  enableDrawing: 'enable_drawing',
  enableTask: 'enable_task',
  enableDataExport: 'enable_data_export',
} as const;

export type StorageKey = (typeof STORAGE_KEYS)[keyof typeof STORAGE_KEYS];

export function readJson<T>(key: StorageKey): T | null {
  const raw = localStorage.getItem(key);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

export function writeJson(key: StorageKey, value: unknown): void {
  localStorage.setItem(key, JSON.stringify(value));
}

export function readPageSize(fallback = 10): number {
  const stored = Number(localStorage.getItem(STORAGE_KEYS.pageSize));
  return [10, 20, 50, 100].includes(stored) ? stored : fallback;
}

export function writePageSize(size: number): void {
  localStorage.setItem(STORAGE_KEYS.pageSize, String(size));
}
