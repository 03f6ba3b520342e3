import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Where `node scripts/record-test-durations.mjs` keeps each test file's duration of the last full run. */
export const DURATIONS_FILE = new URL('./test-durations.json', import.meta.url);

/**
 * A file missing from the record (new, or renamed) counts as a middling e2e file: it starts before the many
 * short files, after the few long ones.
 */
const UNKNOWN_FILE_SECONDS = 20;

/**
 * Starts the longest test files first. CI runs on fresh machines, where vitest has no cache of earlier runs and
 * orders files by their size, which says little about their run time (a short file can start a dozen gateway
 * processes). With the recorded durations the long files start at once and the short ones fill the gaps, so the
 * workers finish at about the same time instead of waiting on one long file started late.
 */
export class LongestFirstSequencer extends BaseSequencer {
  private readonly seconds: Record<string, number> = readDurations();

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const estimate = (spec: TestSpecification) => this.seconds[relative(root, spec.moduleId)] ?? UNKNOWN_FILE_SECONDS;
    // Vitest runs the projects' groups one after another; within a group, longest first.
    return [...files].sort(
      (a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || estimate(b) - estimate(a),
    );
  }
}

function readDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as Record<string, number>;
  } catch {
    // No record yet: every file is "unknown", which keeps vitest's order.
    return {};
  }
}
