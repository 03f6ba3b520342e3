import type { ComponentType } from 'react';
import { SecuritySection } from '../security/SecuritySection';

/**
 * Sections other features mount on the personal page, after the bindings (the account-security
 * feature adds its 2FA, passkeys and check-in section here: one import and one entry).
 */
export const extraPersonalSections: { key: string; Section: ComponentType }[] = [{ key: 'security', Section: SecuritySection }];
