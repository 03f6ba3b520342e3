import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Toast, loadStatus } from '@console/kit';
import { optionsApi, type OptionMap } from './api';
import { JSON_OPTIONS, SECRET_OPTIONS, changedKeys, checkOption, normaliseJson } from './option-checks';

export interface Settings {
  loaded: boolean;
  stored: OptionMap;
  draft: OptionMap;
  set(key: string, value: string): void;
  /** Saves the keys of one section that changed; `values` are edits made in the same step. */
  save(keys: readonly string[], values?: OptionMap): Promise<boolean>;
  reload(): Promise<void>;
}

/**
 * Every option as stored and as being edited. A section saves only its own changed keys, one PUT each as
 * new-api does, after checking them; the site status is reloaded so the shell shows a new name or logo.
 */
export function useSettings(): Settings {
  const { t } = useTranslation('admin');
  const [stored, setStored] = useState<OptionMap>({});
  const [draft, setDraft] = useState<OptionMap>({});
  const [loaded, setLoaded] = useState(false);

  const reload = useCallback(async () => {
    try {
      const options = await optionsApi.list();
      setStored(options);
      setDraft(options);
      setLoaded(true);
    } catch {
      // Already reported by the API client.
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);

  const set = useCallback((key: string, value: string) => setDraft((current) => ({ ...current, [key]: value })), []);

  const save = async (keys: readonly string[], values: OptionMap = {}): Promise<boolean> => {
    const next = { ...draft, ...values };
    if (Object.keys(values).length) setDraft(next);
    const comparable = (map: OptionMap) =>
      Object.fromEntries(keys.map((key) => [key, JSON_OPTIONS.has(key) ? normaliseJson(map[key] ?? '') : (map[key] ?? '')]));
    const changed = changedKeys(keys, comparable(stored), comparable(next));
    if (changed.length === 0) {
      Toast.warning(t('settings.noChange'));
      return false;
    }
    for (const key of changed) {
      const problem = checkOption(key, next[key] ?? '');
      if (problem) {
        Toast.error(t(`settings.invalid.${problem.message}`, { key, min: problem.min ?? '-', max: problem.max ?? '-' }));
        return false;
      }
    }
    const saved: OptionMap = {};
    for (const key of changed) {
      const value = JSON_OPTIONS.has(key) ? normaliseJson(next[key] ?? '') : (next[key] ?? '');
      try {
        await optionsApi.save(key, value);
        saved[key] = SECRET_OPTIONS.has(key) ? '' : value;
      } catch {
        // The API client showed the server's message for this key.
      }
    }
    const count = Object.keys(saved).length;
    setStored((current) => ({ ...current, ...saved }));
    setDraft((current) => ({ ...current, ...saved }));
    if (count === 0) Toast.error(t('settings.saveFailed'));
    else if (count < changed.length) Toast.warning(t('settings.partialFailed'));
    else Toast.success(t('settings.saved'));
    if (count > 0) void loadStatus().catch(() => undefined);
    return count === changed.length;
  };

  return { loaded, stored, draft, set, save, reload };
}
