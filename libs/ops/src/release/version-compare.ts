/** A semantic version as release tags spell it: `v1.2.3`, `1.2`, `V0.9.0-rc.1`, `1.0.0+build.5`. */
export interface SemanticVersion {
  numbers: [number, number, number];
  /** Pre-release identifiers (`rc.1` → ['rc', '1']); empty for a release. */
  prerelease: string[];
}

const VERSION = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9a-z-]+(?:\.[0-9a-z-]+)*))?(?:\+[0-9a-z.-]*)?$/i;
const NUMERIC = /^\d+$/;

/** Parses a tag or a VERSION value; undefined when it is no semantic version (`dev`, a commit hash). */
export function parseVersion(text: string): SemanticVersion | undefined {
  const match = VERSION.exec(text.trim());
  if (!match) return undefined;
  const numbers = [match[1], match[2], match[3]].map((part) => Number(part ?? 0)) as [number, number, number];
  if (!numbers.every(Number.isSafeInteger)) return undefined;
  return { numbers, prerelease: match[4] ? match[4].split('.') : [] };
}

/** Semantic Versioning 2.0.0 §11 for two pre-release identifiers: numbers numerically, below words. */
function compareIdentifiers(a: string, b: string): number {
  const aNumeric = NUMERIC.test(a);
  const bNumeric = NUMERIC.test(b);
  if (aNumeric && bNumeric) return Math.sign(Number(a) - Number(b));
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** -1, 0 or 1 as `a` precedes, equals or follows `b`; build metadata is ignored, a pre-release precedes its release. */
export function compareVersions(a: SemanticVersion, b: SemanticVersion): number {
  for (let i = 0; i < 3; i++) {
    const difference = Math.sign(a.numbers[i]! - b.numbers[i]!);
    if (difference) return difference;
  }
  if (!a.prerelease.length || !b.prerelease.length) return Math.sign(b.prerelease.length - a.prerelease.length);
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const difference = compareIdentifiers(a.prerelease[i]!, b.prerelease[i]!);
    if (difference) return difference;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

/**
 * Is `latest` a later version than `current`? False when either is no semantic version: a build whose
 * VERSION is `dev` or a commit cannot tell, and must not be told to "update" to an older release.
 */
export function isNewerVersion(latest: string, current: string): boolean {
  const a = parseVersion(latest);
  const b = parseVersion(current);
  return a !== undefined && b !== undefined && compareVersions(a, b) > 0;
}
