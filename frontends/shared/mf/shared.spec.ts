import { describe, expect, it } from 'vitest';
import { mfShared, toRequiredVersion } from './shared';

describe('the shared singleton list', () => {
  it('reads the version behind an npm alias, as Module Federation needs for semi-ui-19', () => {
    expect(toRequiredVersion('npm:@douyinfe/semi-ui-19@2.89.1')).toBe('^2.89.1');
    expect(toRequiredVersion('19.3.1')).toBe('^19.3.1');
    expect(toRequiredVersion('^7.0.0')).toBe('^7.0.0');
  });

  it('shares React, the router, Semi, i18n and the kit as singletons, but not the icons', () => {
    const shared = mfShared();
    expect(shared.react).toEqual({ singleton: true, requiredVersion: '^19.3.1' });
    expect(shared['@douyinfe/semi-ui']).toEqual({ singleton: true, requiredVersion: '^2.89.1' });
    expect(Object.keys(shared)).toEqual(
      expect.arrayContaining(['react-dom', 'react-router-dom', 'i18next', 'react-i18next', '@console/kit', '@console/kit/data']),
    );
    // Shared packages are never tree-shaken: sharing all of semi-icons cost the shell 64 kB gzip on first load.
    expect(Object.keys(shared)).not.toContain('@douyinfe/semi-icons');
  });
});
