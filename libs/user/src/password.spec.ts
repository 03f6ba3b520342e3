import { describe, expect, it } from 'vitest';
import { loadConfig } from '@gw/core';
import { PasswordHasher, verifyPassword } from './password.js';

const hasherAt = (cost?: string) =>
  new PasswordHasher(loadConfig({ SESSION_SECRET: 'password-spec-secret', ...(cost ? { PASSWORD_HASH_COST: cost } : {}) }));

describe('PasswordHasher', () => {
  it("hashes at new-api's cost 10 unless PASSWORD_HASH_COST says otherwise", async () => {
    expect(await hasherAt().hash('secret-1')).toMatch(/^\$2[ab]\$10\$/);
    expect(await hasherAt('4').hash('secret-1')).toMatch(/^\$2[ab]\$04\$/);
  });

  it('refuses a cost outside what bcrypt and a login budget allow', () => {
    expect(() => hasherAt('3')).toThrow(/PASSWORD_HASH_COST/);
    expect(() => hasherAt('17')).toThrow(/PASSWORD_HASH_COST/);
  });

  it('checks a hash of any cost, and refuses an unknown user whatever the password', async () => {
    const cheap = hasherAt('4');
    const hash = await cheap.hash('right-password');
    expect(await verifyPassword('right-password', hash)).toBe(true);
    expect(await cheap.verifyOrDummy('right-password', hash)).toBe(true);
    expect(await cheap.verifyOrDummy('wrong-password', hash)).toBe(false);
    expect(await cheap.verifyOrDummy('timing-equaliser', undefined)).toBe(false);
    expect(await verifyPassword('right-password', 'not-a-bcrypt-hash')).toBe(false);
  });
});
