import type { ComponentType } from 'react';
import { CustomOAuthSettings } from '../custom-oauth/CustomOAuthSettings';
import type { Settings } from '../useSettings';

/**
 * Further blocks of the system tab, drawn after the built-in ones. A self-contained settings component
 * (e.g. custom OAuth providers) is added here with one line, without touching the system tab itself.
 */
export const EXTRA_SYSTEM_SECTIONS: { key: string; Component: ComponentType<{ settings: Settings }> }[] = [
  { key: 'custom-oauth', Component: CustomOAuthSettings },
];
