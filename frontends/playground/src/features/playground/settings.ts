import { useEffect, useState } from 'react';

export interface PlaygroundSettings {
  model: string;
  /** '' = the user's own group. */
  group: string;
  temperature: number;
  /** Sent only when enabled: most providers advise changing temperature or top_p, not both. */
  topP: number;
  topPEnabled: boolean;
  /** 0 = no limit (not sent). */
  maxTokens: number;
  systemPrompt: string;
  stream: boolean;
}

/** Spec 001 §9 playground defaults. */
export const DEFAULT_SETTINGS: PlaygroundSettings = {
  model: 'gpt-4o-mini',
  group: '',
  temperature: 0,
  topP: 1,
  topPEnabled: false,
  maxTokens: 0,
  systemPrompt: 'You are a helpful assistant. Answer clearly and concisely.',
  stream: true,
};

/** Spec 001 §5: the temperature slider runs 0.1–1 in steps of 0.1. */
export const TEMPERATURE = { min: 0.1, max: 1, step: 0.1 } as const;

const SETTINGS_KEY = 'playground-settings';

/** Stored settings merged over the defaults, so a setting added later gets its default; junk is ignored. */
export function readSettings(storage: Pick<Storage, 'getItem'> = localStorage): PlaygroundSettings {
  try {
    const stored = JSON.parse(storage.getItem(SETTINGS_KEY) ?? '{}') as Record<string, unknown>;
    const merged: Record<string, unknown> = { ...DEFAULT_SETTINGS };
    for (const [key, fallback] of Object.entries(DEFAULT_SETTINGS)) {
      if (typeof stored[key] === typeof fallback) merged[key] = stored[key];
    }
    return merged as unknown as PlaygroundSettings;
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

/** Settings survive reloads with the conversation, so a page refresh does not lose the set-up. */
export function usePlaygroundSettings() {
  const [settings, setSettings] = useState<PlaygroundSettings>(() => readSettings());
  useEffect(() => {
    localStorage.setItem(SETTINGS_KEY, JSON.stringify(settings));
  }, [settings]);
  const update = <K extends keyof PlaygroundSettings>(key: K, value: PlaygroundSettings[K]) =>
    setSettings((current) => ({ ...current, [key]: value }));
  const reset = () => setSettings({ ...DEFAULT_SETTINGS });
  return { settings, update, reset };
}
