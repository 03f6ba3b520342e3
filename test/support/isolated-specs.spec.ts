import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISOLATED_SPECS, NEEDS_ISOLATION } from './isolated-specs.js';

const ROOT = join(import.meta.dirname, '../..');

function specsUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...specsUnder(path));
    else if (/\.spec\.tsx?$/.test(entry.name)) found.push(relative(ROOT, path));
  }
  return found;
}

describe('unit specs that need their own module graph', () => {
  const specs = ['libs', 'apps', 'frontends', 'test'].flatMap((dir) => specsUnder(join(ROOT, dir)));
  const needing = specs.filter(
    (file) => file !== 'test/support/isolated-specs.spec.ts' && NEEDS_ISOLATION.test(readFileSync(join(ROOT, file), 'utf8')),
  );

  it('are all listed as isolated, so a mock cannot leak into the next file of a shared worker', () => {
    expect(needing.length).toBeGreaterThan(0);
    expect(needing.filter((file) => !ISOLATED_SPECS.includes(file))).toEqual([]);
  });

  it('lists only specs that exist and still need it', () => {
    expect(ISOLATED_SPECS.filter((file) => !needing.includes(file))).toEqual([]);
  });
});
