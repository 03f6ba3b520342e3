import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { en as adminEn } from '../../../admin/src/i18n/en';
import { zh as adminZh } from '../../../admin/src/i18n/zh';
import { en as playgroundEn } from '../../../playground/src/i18n/en';
import { zh as playgroundZh } from '../../../playground/src/i18n/zh';
import { en as shellEn } from '../../../shell/src/i18n/en';
import { zh as shellZh } from '../../../shell/src/i18n/zh';
import { en as userEn } from '../../../user/src/i18n/en';
import { zh as userZh } from '../../../user/src/i18n/zh';
import { taskLogMessages } from '../../../user/src/features/task-logs/messages';
import { kitResources } from './kit-messages';

const FRONTENDS = fileURLToPath(new URL('../../../', import.meta.url));

type Messages = Record<string, unknown>;

/** Features that keep their messages in a namespace of their own: a file naming the namespace or importing the feature's parts uses them. */
const FEATURE_NAMESPACES: { markers: string[]; messages: { en: Messages; zh: Messages } }[] = [
  { markers: ['TASK_LOG_NS', "from '../task-logs/"], messages: taskLogMessages },
];

const APPS: Record<string, { en: Messages; zh: Messages }> = {
  shell: { en: shellEn, zh: shellZh },
  admin: { en: adminEn, zh: adminZh },
  user: { en: userEn, zh: userZh },
  playground: { en: playgroundEn, zh: playgroundZh },
};

function lookup(messages: Messages, key: string): unknown {
  return key
    .split('.')
    .reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Messages)[part] : undefined), messages);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'i18n' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * Literal keys passed to t() in an app's sources ("kit:" keys belong to the kit's namespace), plus the
 * label/title keys of route and menu tables, which are translated where they are drawn.
 */
function usedKeys(app: string): { file: string; key: string; own?: { en: Messages; zh: Messages } }[] {
  const patterns = [/\bt\(\s*'([^']+)'/g, /\b(?:label|title): '([a-z]+\.[\w.]+)'/g];
  return sourceFiles(join(FRONTENDS, app, 'src')).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const own = FEATURE_NAMESPACES.find(({ markers }) => markers.some((marker) => text.includes(marker)))?.messages;
    return patterns.flatMap((pattern) =>
      [...text.matchAll(pattern)].map((match) => ({ file: file.slice(FRONTENDS.length), key: match[1]!, own })),
    );
  });
}

const isTranslated = (messages: { en: Messages; zh: Messages }, key: string) =>
  typeof lookup(messages.en, key) === 'string' && typeof lookup(messages.zh, key) === 'string';

describe('translations', () => {
  it.each(Object.keys(APPS))('every literal key the %s app shows exists in Chinese and English', (app) => {
    const missing = usedKeys(app).filter(({ key, own }) =>
      key.startsWith('kit:') ? !isTranslated(kitResources, key.slice(4)) : !isTranslated(own ?? APPS[app]!, key),
    );
    expect(missing).toEqual([]);
  });

  it('every key the kit shows exists in its own namespace, in Chinese and English', () => {
    const used = usedKeys('shared');
    expect(used.length).toBeGreaterThan(0);
    // Kit components use the 'kit' namespace, by prefix or through useTranslation('kit').
    expect(used.filter(({ key }) => !isTranslated(kitResources, key.replace(/^kit:/, '')))).toEqual([]);
  });
});
