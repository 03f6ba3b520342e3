/** Where the unit tier's specs live (vitest.config.ts). */
export const UNIT_SPECS = [
  'libs/**/*.spec.ts',
  'apps/**/*.spec.ts',
  'test/fake-upstream/**/*.spec.ts',
  'scripts/**/*.spec.ts',
  'test/support/**/*.spec.ts',
  'frontends/*/{src,mf}/**/*.spec.ts',
];

/**
 * Unit specs that replace a module (vi.mock) or a global (vi.stubGlobal, vi.stubEnv). The rest of the unit
 * tier shares modules from file to file (isolate: false), where such a replacement would leak into the next
 * file, so these run isolated. isolated-specs.spec.ts fails when a spec that needs it is missing here.
 */
export const ISOLATED_SPECS = [
  'libs/ops/src/health/uptime-kuma.service.spec.ts',
  'libs/user/src/user-notify.service.spec.ts',
  'libs/core/src/net/outbound-dns.spec.ts',
  'frontends/playground/src/features/playground/relay-client.spec.ts',
];

/** A call that makes a spec need its own module graph. */
export const NEEDS_ISOLATION = /\bvi\.(mock|doMock|stubGlobal|stubEnv)\(/;
