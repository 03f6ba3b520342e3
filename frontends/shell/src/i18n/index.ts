import type { NamespaceResources } from '@console/kit';
import { en } from './en';
import { zh } from './zh';

export const shellResources: NamespaceResources = { en, zh };
