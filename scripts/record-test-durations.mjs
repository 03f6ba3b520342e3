// Records how long each test file took in the last full `npm test` (test-results/vitest.json) into
// test/support/test-durations.json, which the longest-first sequencer reads to start the long files first.
// Run it after a full run on the CI machine when files were added, split or got much slower, and commit the result.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const reports = process.argv.length > 2 ? process.argv.slice(2) : ['test-results/vitest.json'];
const target = 'test/support/test-durations.json';

const seconds = {};
for (const report of reports) {
  let result;
  try {
    result = JSON.parse(readFileSync(report, 'utf8'));
  } catch {
    console.log(`skipped ${report}: no readable report`);
    continue;
  }
  for (const file of result.testResults) {
    // Whole seconds are precise enough to order files, and keep the diff of a re-recording small.
    seconds[relative(resolve('.'), file.name)] = Math.max(1, Math.round((file.endTime - file.startTime) / 1000));
  }
}
if (Object.keys(seconds).length === 0) {
  console.error('no test durations found: run the full `npm test` first');
  process.exit(1);
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(target, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`recorded ${Object.keys(sorted).length} test files in ${target}`);
