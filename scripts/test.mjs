// `npm test`: builds once, type-checks every workspace (backend, tests, scripts, each frontend) and runs
// Biome over the whole tree, then runs every tier (unit, API e2e, browser) with vitest, and ends with
// a plain "N passed, N failed" line. SQLite always; MariaDB, PostgreSQL and Redis when
// TEST_MYSQL_URL, TEST_POSTGRES_URL and TEST_REDIS_URL are set (.ci/run sets them).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';

const started = Date.now();
const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', env: process.env });

if (!process.env.SKIP_BUILD) {
  const build = run('npm', ['run', 'build']);
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// Static checks run side by side (two processes for two cores); every one must pass before any test runs.
const check = (name, cmd, args) =>
  new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => resolve({ name, code, output }));
  });
if (!process.env.SKIP_CHECKS) {
  const results = await Promise.all([
    check('type-check (backend, tests, scripts)', 'node_modules/.bin/tsc', ['-p', 'tsconfig.json', '--noEmit']),
    check('type-check (frontends)', 'node_modules/.bin/tsc', ['-p', 'frontends', '--noEmit']),
    check('lint and format (Biome)', 'node_modules/.bin/biome', ['ci', '--max-diagnostics=50', '.']),
  ]);
  for (const { name, code, output } of results) {
    console.log(`${code === 0 ? 'ok  ' : 'FAIL'} ${name}`);
    if (code !== 0) console.log(output);
  }
  if (results.some((r) => r.code !== 0)) process.exit(1);
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
