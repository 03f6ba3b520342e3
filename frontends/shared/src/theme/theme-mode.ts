import { createStore, useStore } from '../storage/store';
import { STORAGE_KEYS } from '../storage/keys';

export type ThemeMode = 'light' | 'dark';

function initialMode(): ThemeMode {
  const stored = localStorage.getItem(STORAGE_KEYS.themeMode);
  if (stored === 'dark' || stored === 'light') return stored;
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export const themeModeStore = createStore<ThemeMode>(initialMode());

/** Semi switches its CSS variables on the body's theme-mode attribute. */
export function applyThemeMode(mode: ThemeMode = themeModeStore.get()): void {
  if (mode === 'dark') document.body.setAttribute('theme-mode', 'dark');
  else document.body.removeAttribute('theme-mode');
}

export function setThemeMode(mode: ThemeMode): void {
  localStorage.setItem(STORAGE_KEYS.themeMode, mode);
  themeModeStore.set(mode);
  applyThemeMode(mode);
}

export function useThemeMode(): [ThemeMode, (mode: ThemeMode) => void] {
  return [useStore(themeModeStore), setThemeMode];
}
