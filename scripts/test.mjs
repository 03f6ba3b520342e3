// `npm test`: builds once, type-checks every workspace (backend, tests, scripts, each frontend) and runs
// Biome over the whole tree, then runs every tier (unit, API e2e, browser) with vitest, and ends with
// a plain "N passed, N failed" line. SQLite always; MariaDB, PostgreSQL and Redis when
// TEST_MYSQL_URL, TEST_POSTGRES_URL and TEST_REDIS_URL are set (.ci/run sets them).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';

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
const vitestRun = (reportFile, args) => ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`, ...args];
const reports = ['test-results/vitest.json'];
/** Resolves with vitest's exit code (1 when a signal ended it). */
const spawnVitest = (args, stdio) =>
  new Promise((resolve) => {
    spawn('node_modules/.bin/vitest', args, { stdio, env: process.env }).on('close', (code) => resolve(code ?? 1));
  });
// A report left by an earlier run must not be read as this run's.
for (const report of [...reports, 'test-results/vitest-browser.json']) rmSync(report, { force: true });
let status;
const extraArgs = process.argv.slice(2);
if (extraArgs.length > 0) {
  // A chosen file, project or filter: one vitest over every project, as asked.
  status = run('node_modules/.bin/vitest', vitestRun(reports[0], extraArgs)).status;
} else {
  // The browser tier runs its files one at a time (each drives a Chromium against its own gateway); inside the
  // same vitest it could only start once every unit and e2e file had finished. In a second vitest process it
  // runs alongside them. Its output goes to a file (readable while it runs) and is printed once unit and e2e
  // are done, so the two logs do not interleave.
  reports.push('test-results/vitest-browser.json');
  const browserLog = 'test-results/browser-tier.log';
  const browserOut = openSync(browserLog, 'w');
  const browser = spawnVitest(vitestRun(reports[1], ['--project', 'browser']), ['ignore', browserOut, browserOut]);
  status = await spawnVitest(vitestRun(reports[0], ['--project', 'unit', '--project', 'e2e']), 'inherit');
  const browserStatus = await browser;
  closeSync(browserOut);
  console.log(`\n--- browser tier (${browserLog}) ---\n${readFileSync(browserLog, 'utf8')}`);
  if (status === 0) status = browserStatus;
}

let summary = 'no test report was written';
const totals = { passed: 0, failed: 0, skipped: 0, total: 0 };
const missing = [];
for (const report of reports) {
  try {
    const result = JSON.parse(readFileSync(report, 'utf8'));
    totals.passed += result.numPassedTests;
    totals.failed += result.numFailedTests;
    totals.skipped += result.numPendingTests + result.numTodoTests;
    totals.total += result.numTotalTests;
  } catch {
    // That vitest crashed before writing its report; its exit code says so.
    missing.push(report);
  }
}
if (missing.length < reports.length) {
  summary = `${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`;
  if (totals.total === 0) summary += ' (no test ran)';
  if (missing.length > 0) summary += ` (no report in ${missing.join(', ')})`;
}
console.log(`\n${summary}`);
console.log(`total time ${((Date.now() - started) / 1000).toFixed(0)} s`);
process.exit(status ?? 1);
