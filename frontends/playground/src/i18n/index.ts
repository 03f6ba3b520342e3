import type { NamespaceResources } from '@console/kit';
import { en } from './en';
import { zh } from './zh';

export const resources: NamespaceResources = { en, zh };
