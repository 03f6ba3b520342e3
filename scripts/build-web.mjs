// `npm run build:web`: builds every console app (scripts/console-apps.mjs) one after another, then prints the
// bundle report. `npm test` builds them in its own two-lane pool instead (scripts/test.mjs).
import { spawnSync } from 'node:child_process';
import { CONSOLE_APPS } from './console-apps.mjs';

const workspaces = CONSOLE_APPS.flatMap((app) => ['-w', `@console/${app}`]);
for (const [cmd, args] of [
  ['npm', ['run', 'build', ...workspaces]],
  ['node', ['scripts/report-bundles.mjs']],
]) {
  const result = spawnSync(cmd, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
