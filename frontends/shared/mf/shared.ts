// The one list of Module Federation singletons. Every build config (shell and remotes) imports it, so no
// app can drift to a second React, router, Semi or i18n instance.
import { readFileSync } from 'node:fs';

export const SHARED_SINGLETONS = [
  'react',
  'react-dom',
  'react-router-dom',
  '@douyinfe/semi-ui',
  // Not '@douyinfe/semi-icons': icons are stateless, and a shared package is never tree-shaken, so sharing it
  // would send all ~2 000 icons (64 kB gzip) on first load; each app bundles just the icons it draws.
  'i18next',
  'react-i18next',
  '@console/kit',
  // The kit's heavy half (Table, Form, DatePicker...), split off so the shell's first load stays small.
  '@console/kit/data',
] as const;

export type SharedSingleton = (typeof SHARED_SINGLETONS)[number];

export interface SharedModuleMeta {
  singleton: true;
  requiredVersion: string;
}

interface KitPackageJson {
  version: string;
  dependencies: Record<string, string>;
}

/** "npm:@douyinfe/semi-ui-19@2.89.1" -> "^2.89.1"; "19.3.1" -> "^19.3.1". */
export function toRequiredVersion(spec: string): string {
  const aliased = spec.match(/^npm:(?:@[^/]+\/)?[^@]+@(.+)$/);
  const range = aliased ? aliased[1] : spec;
  return /^\d/.test(range) ? `^${range}` : range;
}

/** Versions come from the kit's package.json: the kit owns the UI stack every app runs on. */
export function mfShared(): Record<SharedSingleton, SharedModuleMeta> {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as KitPackageJson;
  const versionOf = (name: SharedSingleton) => (name.startsWith('@console/kit') ? pkg.version : pkg.dependencies[name]);
  const entries = SHARED_SINGLETONS.map((name) => {
    const spec = versionOf(name);
    if (!spec) throw new Error(`@console/kit package.json has no dependency ${name}`);
    return [name, { singleton: true, requiredVersion: toRequiredVersion(spec) }] as const;
  });
  return Object.fromEntries(entries) as Record<SharedSingleton, SharedModuleMeta>;
}
