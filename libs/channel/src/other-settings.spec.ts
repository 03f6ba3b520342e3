import { describe, expect, it } from 'vitest';
import { blockedRequestFields } from './other-settings.js';

describe('blockedRequestFields', () => {
  it("blocks service_tier and safety_identifier by default and store only when disabled, as new-api's other settings do", () => {
    expect(blockedRequestFields({})).toEqual(['service_tier', 'safety_identifier']);
    expect(blockedRequestFields({ allow_service_tier: true, allow_safety_identifier: true })).toEqual([]);
    expect(blockedRequestFields({ allow_service_tier: 'yes', disable_store: true })).toEqual([
      'service_tier',
      'safety_identifier',
      'store',
    ]);
  });
});
