// The console's micro-frontends: every workspace under frontends/ whose build is an Rsbuild app (the shell and
// its remotes; `frontends/shared` only type-checks). Read from the workspaces themselves, so a new remote is
// built, type-checked and measured by `npm test`, `npm run build:web` and the bundle report without a list
// to keep in step.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const FRONTENDS = new URL('../frontends/', import.meta.url).pathname;

/** Folder names (= `@console/<name>` workspaces) of the console apps, the shell first. */
export const CONSOLE_APPS = readdirSync(FRONTENDS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(FRONTENDS, entry.name, 'package.json')))
  .filter((entry) => {
    const pkg = JSON.parse(readFileSync(join(FRONTENDS, entry.name, 'package.json'), 'utf8'));
    return /^rsbuild build\b/.test(pkg.scripts?.build ?? '');
  })
  .map((entry) => entry.name)
  .sort((a, b) => (a === 'shell' ? -1 : b === 'shell' ? 1 : a.localeCompare(b)));
