import { useState } from 'react';

export interface PlaygroundSettings {
  model: string;
  group: string;
  temperature: number;
  maxTokens: number;
  systemPrompt: string;
}

/** Spec 001 §9 playground defaults. */
export const DEFAULT_SETTINGS: PlaygroundSettings = {
  model: 'gpt-4o-mini',
  group: '',
  temperature: 0,
  maxTokens: 0,
  systemPrompt: 'You are a helpful assistant. Answer clearly and concisely.',
};

export function usePlaygroundSettings() {
  const [settings, setSettings] = useState<PlaygroundSettings>(DEFAULT_SETTINGS);
  const update = <K extends keyof PlaygroundSettings>(key: K, value: PlaygroundSettings[K]) => setSettings((current) => ({ ...current, [key]: value }));
  return { settings, update };
}
