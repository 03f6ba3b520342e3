// `npm test`: builds once, type-checks every workspace (backend, tests, scripts, each frontend) and runs
// Biome over the whole tree, then runs every tier (unit, API e2e, browser) with vitest, and ends with
// a plain "N passed, N failed" line. SQLite always; MariaDB, PostgreSQL and Redis when
// TEST_MYSQL_URL, TEST_POSTGRES_URL and TEST_REDIS_URL are set (.ci/run sets them).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { CONSOLE_APPS } from './console-apps.mjs';
import { runPool } from './step-pool.mjs';

const started = Date.now();
const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', env: process.env });

// The build and the static checks share one pool of two lanes (two cores): most steps are single-threaded
// (tsc, Sass inside each console build), so two at a time finish in about half the time of one after another.
// Longest first; a step waits for the steps it names. Every step must pass before any test runs.
const steps = [];
const step = (name, cmd, args, after = [], show = false) => steps.push({ name, cmd, args, after, show });
// CI installs with --ignore-scripts and compiles the SQLite driver here, in a lane beside the builds: the
// compile is one long single-threaded C file that otherwise ran alone at the end of `npm ci`.
if (!existsSync('node_modules/better-sqlite3/build/Release/better_sqlite3.node')) {
  step('compile the SQLite driver (better-sqlite3)', 'npm', ['rebuild', 'better-sqlite3']);
}
const web = (app) => ['npm', ['run', 'build', '-w', `@console/${app}`]];
if (!process.env.SKIP_CHECKS) {
  step('type-check (backend, tests, scripts)', 'node_modules/.bin/tsc', ['-p', 'tsconfig.json', '--noEmit']);
}
if (!process.env.SKIP_BUILD) {
  step('build server', 'node', ['scripts/build-server.mjs']);
  for (const app of CONSOLE_APPS) step(`build console ${app}`, ...web(app));
  const consoles = steps.filter((s) => s.name.startsWith('build console')).map((s) => s.name);
  step('console bundle report', 'node', ['scripts/report-bundles.mjs'], consoles, true);
}
if (!process.env.SKIP_CHECKS) {
  step('type-check (frontends)', 'node_modules/.bin/tsc', ['-p', 'frontends', '--noEmit']);
  step('lint and format (Biome)', 'node_modules/.bin/biome', ['ci', '--max-diagnostics=50', '.']);
}
const failed = await runPool(steps, 2);
if (failed) process.exit(1);

const targets = [
  'sqlite',
  process.env.TEST_MYSQL_URL && 'mariadb',
  process.env.TEST_POSTGRES_URL && 'postgresql',
  process.env.TEST_REDIS_URL && 'redis',
];
console.log(`\nTesting on: ${targets.filter(Boolean).join(', ')}`);

mkdirSync('test-results', { recursive: true });
const report = 'test-results/vitest.json';
const vitest = run('node_modules/.bin/vitest', [
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...process.argv.slice(2),
]);

let summary = 'no test report was written';
try {
  const result = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = result.numPendingTests + result.numTodoTests;
  summary = `${result.numPassedTests} passed, ${result.numFailedTests} failed, ${skipped} skipped`;
  if (result.numTotalTests === 0) summary += ' (no test ran)';
} catch {
  // vitest crashed before writing its report; its exit code says so.
}
console.log(`\n${summary}`);
console.log(`total time ${((Date.now() - started) / 1000).toFixed(0)} s`);
process.exit(vitest.status ?? 1);
