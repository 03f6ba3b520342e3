// `npm test`: builds once, then runs every tier (unit, API e2e, browser) with vitest, and ends with
// a plain "N passed, N failed" line. SQLite always; MariaDB, PostgreSQL and Redis when
// TEST_MYSQL_URL, TEST_POSTGRES_URL and TEST_REDIS_URL are set (.ci/run sets them).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';

const started = Date.now();
const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', env: process.env });

if (!process.env.SKIP_BUILD) {
  const build = run('npm', ['run', 'build']);
  if (build.status !== 0) process.exit(build.status ?? 1);
}

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
