import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { ISOLATED_SPECS, UNIT_SPECS } from './test/support/isolated-specs.js';
import { LongestFirstSequencer } from './test/support/longest-first-sequencer.js';

const libs = [
  'core',
  'database',
  'contracts',
  'option',
  'user',
  'auth',
  'channel',
  'upstream',
  'token',
  'redemption',
  'log',
  'task',
  'relay',
  'ops',
];
const alias = Object.fromEntries(libs.map((lib) => [`@gw/${lib}`, fileURLToPath(new URL(`./libs/${lib}/src/index.ts`, import.meta.url))]));

export default defineConfig({
  resolve: { alias },
  test: {
    environment: 'node',
    testTimeout: 30_000,
    // The e2e suites mostly wait on databases and sockets: three files at a time keep both cores busy.
    maxWorkers: 3,
    hookTimeout: 60_000,
    // Long files first (recorded durations), so the run does not end on one long file while the workers idle.
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        extends: true,
        // Module state is shared from file to file in a worker (isolate: false): importing the libraries once
        // per worker instead of once per file cut the unit tier's CPU about fivefold. Specs that replace a module
        // or a global would leak into the next file, so they run isolated (test/support/isolated-specs.ts).
        test: { name: 'unit', include: UNIT_SPECS, exclude: [...ISOLATED_SPECS, '**/node_modules/**'], isolate: false },
      },
      { extends: true, test: { name: 'unit-isolated', include: ISOLATED_SPECS } },
      {
        extends: true,
        // The suites share nothing at module level (each starts its own gateways and databases), so a worker
        // keeps its imported modules from one file to the next instead of importing the whole app again:
        // about half the CPU of the e2e tier went to those imports.
        test: { name: 'e2e', include: ['test/e2e/**/*.e2e.test.ts'], isolate: false, globalSetup: ['test/support/build-once.ts'] },
      },
      {
        extends: true,
        // After every other tier (a group of its own), two files at a time: each drives one Chromium against its
        // own gateway, and two such pairs keep two cores busy without the load of the e2e tier around them.
        test: {
          name: 'browser',
          include: ['test/browser/**/*.browser.test.ts'],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          testTimeout: 120_000,
        },
      },
    ],
  },
});
