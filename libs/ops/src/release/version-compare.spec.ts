import { describe, expect, it } from 'vitest';
import { compareVersions, isNewerVersion, parseVersion } from './version-compare.js';

const compare = (a: string, b: string) => compareVersions(parseVersion(a)!, parseVersion(b)!);

describe('version comparison', () => {
  it('reads tags with or without the v prefix, and short forms', () => {
    expect(parseVersion('v1.2.3')).toEqual({ numbers: [1, 2, 3], prerelease: [] });
    expect(parseVersion(' V1.2.3 ')).toEqual({ numbers: [1, 2, 3], prerelease: [] });
    expect(parseVersion('1.2')).toEqual({ numbers: [1, 2, 0], prerelease: [] });
    expect(parseVersion('v2')).toEqual({ numbers: [2, 0, 0], prerelease: [] });
    expect(parseVersion('v0.9.0-rc.1+build.7')).toEqual({ numbers: [0, 9, 0], prerelease: ['rc', '1'] });
  });

  it('refuses what is no semantic version', () => {
    for (const text of ['', 'dev', 'latest', 'abc1234', 'v1.2.3.4', '1..2', 'v1.2.3-', 'v-1.0.0', '1.2.3-rc..1', `${'9'.repeat(20)}.0.0`]) {
      expect(parseVersion(text), text).toBeUndefined();
    }
  });

  it('orders by major, minor and patch numerically', () => {
    expect(compare('v1.10.0', 'v1.9.9')).toBe(1);
    expect(compare('v0.9.10', 'v0.9.9')).toBe(1);
    expect(compare('v2.0.0', 'v10.0.0')).toBe(-1);
    expect(compare('v1.2.3', '1.2.3')).toBe(0);
    expect(compare('1.2', 'v1.2.0')).toBe(0);
  });

  it('puts a pre-release before its release and orders pre-releases by Semantic Versioning', () => {
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
    ];
    for (let i = 1; i < ordered.length; i++) {
      expect(compare(ordered[i]!, ordered[i - 1]!), `${ordered[i]} > ${ordered[i - 1]}`).toBe(1);
      expect(compare(ordered[i - 1]!, ordered[i]!), `${ordered[i - 1]} < ${ordered[i]}`).toBe(-1);
    }
    expect(compare('1.0.0+build.1', '1.0.0+build.2')).toBe(0);
  });

  it('says a release is newer only when both sides are versions and it is later', () => {
    expect(isNewerVersion('v1.3.0', 'v1.2.9')).toBe(true);
    expect(isNewerVersion('v1.3.0', '1.3.0')).toBe(false);
    expect(isNewerVersion('v1.2.0', 'v1.3.0')).toBe(false);
    expect(isNewerVersion('v1.3.0', 'v1.3.0-rc.2')).toBe(true);
    expect(isNewerVersion('v1.3.0', 'dev')).toBe(false);
    expect(isNewerVersion('nightly', 'v1.0.0')).toBe(false);
  });
});
