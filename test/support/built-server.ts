import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const BUILT_MAIN = 'dist/apps/gateway/src/main.js';

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') newest = Math.max(newest, newestSource(path));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

/** Builds the server (npm run build:server) unless dist/ is newer than every backend source file. */
export function ensureServerBuilt(): void {
  const sources = Math.max(newestSource('apps'), newestSource('libs'));
  if (existsSync(BUILT_MAIN) && statSync(BUILT_MAIN).mtimeMs >= sources) return;
  const result = spawnSync('npm', ['run', 'build:server'], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm run build:server failed');
}
